use super::*;

/// Decodes `input` whole, byte by byte, and split in two at every possible
/// position; all must give the same frames.
fn frames_every_split(input: &[u8]) -> Vec<Frame> {
    let whole = decode_all(input);
    for cut in 0..=input.len() {
        let mut d = Decoder::new();
        let mut got = d.feed(&input[..cut]);
        got.extend(d.feed(&input[cut..]));
        got.extend(d.finish());
        assert_eq!(got, whole, "split at byte {cut} of {:?}", String::from_utf8_lossy(input));
    }
    let mut d = Decoder::new();
    let mut got = Vec::new();
    for b in input {
        got.extend(d.feed(std::slice::from_ref(b)));
    }
    got.extend(d.finish());
    assert_eq!(got, whole, "byte by byte");
    whole
}

fn ev(data: &str) -> Frame {
    Frame::Event(Event { event: None, data: data.into(), id: None })
}

fn datas(frames: &[Frame]) -> Vec<String> {
    frames
        .iter()
        .filter_map(|f| match f {
            Frame::Event(e) => Some(e.data.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn lf_crlf_and_lone_cr_terminate_lines() {
    for sep in ["\n", "\r\n", "\r"] {
        let input = format!("data: a{sep}{sep}data: b{sep}{sep}");
        assert_eq!(frames_every_split(input.as_bytes()), vec![ev("a"), ev("b")], "sep {sep:?}");
    }
    // Mixed terminators in one stream.
    let mixed = b"data: a\r\n\r\ndata: b\r\rdata: c\n\n";
    assert_eq!(datas(&frames_every_split(mixed)), ["a", "b", "c"]);
}

#[test]
fn comments_are_reported_and_carry_no_data() {
    let input = b": OPENROUTER PROCESSING\n\ndata: x\n\n:\n\n";
    assert_eq!(frames_every_split(input), vec![Frame::Comment("OPENROUTER PROCESSING".into()), ev("x"), Frame::Comment(String::new())]);
}

#[test]
fn multi_line_data_joins_with_newline() {
    let input = b"data: {\"a\":\ndata: 1}\ndata\n\n";
    assert_eq!(frames_every_split(input), vec![ev("{\"a\":\n1}\n")]);
}

#[test]
fn event_type_and_id_are_kept() {
    let input = b"event: error\nid: 7\ndata: boom\n\ndata: after\n\n";
    assert_eq!(
        frames_every_split(input),
        vec![
            Frame::Event(Event { event: Some("error".into()), data: "boom".into(), id: Some("7".into()) }),
            // The event type resets, the id persists.
            Frame::Event(Event { event: None, data: "after".into(), id: Some("7".into()) }),
        ]
    );
}

#[test]
fn priming_event_without_data_is_skipped_but_sets_id() {
    let mut d = Decoder::new();
    let frames = d.feed(b"id: abc\n\n");
    assert!(frames.is_empty());
    assert_eq!(d.last_event_id(), Some("abc"));
}

#[test]
fn retry_only_when_digits() {
    let input = b"retry: 1500\nretry: x1\nretry:\n\n";
    assert_eq!(frames_every_split(input), vec![Frame::Retry(1500)]);
}

#[test]
fn no_space_after_colon_and_only_one_space_stripped() {
    let input = b"data:a\n\ndata:  b\n\n";
    assert_eq!(datas(&frames_every_split(input)), ["a", " b"]);
}

#[test]
fn unterminated_last_event_is_dispatched_at_end_of_body() {
    assert_eq!(frames_every_split(b"data: tail"), vec![ev("tail")]);
    assert_eq!(frames_every_split(b"data: tail\n"), vec![ev("tail")]);
    assert_eq!(frames_every_split(b"data: tail\r"), vec![ev("tail")]);
}

#[test]
fn bom_is_dropped_even_when_split() {
    let input = b"\xEF\xBB\xBFdata: x\n\n";
    assert_eq!(frames_every_split(input), vec![ev("x")]);
    // A BOM later in the stream is data.
    let later = b"data: \xEF\xBB\xBFx\n\n";
    assert_eq!(datas(&frames_every_split(later)), ["\u{feff}x"]);
}

#[test]
fn utf8_split_inside_a_character_survives() {
    let input = "data: 你好, мир 🌍\n\n".as_bytes();
    assert_eq!(frames_every_split(input), vec![ev("你好, мир 🌍")]);
}

#[test]
fn invalid_utf8_is_replaced_not_fatal() {
    let input = b"data: a\xFFb\n\n";
    assert_eq!(datas(&frames_every_split(input)), ["a\u{FFFD}b"]);
}

#[test]
fn unknown_fields_and_field_without_colon_are_ignored() {
    let input = b"foo: bar\nevent\nbaz\ndata: ok\n\n";
    assert_eq!(frames_every_split(input), vec![ev("ok")]);
}

#[test]
fn empty_input_gives_nothing() {
    assert!(frames_every_split(b"").is_empty());
    assert!(frames_every_split(b"\n\n\r\n").is_empty());
}

proptest::proptest! {
    /// Any bytes of the stream's alphabet, cut anywhere: the same frames as
    /// whole, and no panic.
    #[test]
    fn random_bytes_never_panic(input in proptest::collection::vec(proptest::sample::select(&b"data:event:id:retry: \r\n\xEF\xBB\xBF\xFF{}\""[..]), 0..64), cut in proptest::prelude::any::<proptest::sample::Index>()) {
        let whole = decode_all(&input);
        let cut = cut.index(input.len() + 1);
        let mut d = Decoder::new();
        let mut got = d.feed(&input[..cut]);
        got.extend(d.feed(&input[cut..]));
        got.extend(d.finish());
        proptest::prop_assert_eq!(got, whole);
    }
}

/// As [`frames_every_split`], with a decoder of `limit` bytes.
fn limited_every_split(input: &[u8], limit: usize) -> Vec<Frame> {
    let decode = |parts: &[&[u8]]| {
        let mut d = Decoder::with_limit(limit);
        let mut got: Vec<Frame> = parts.iter().flat_map(|p| d.feed(p)).collect();
        got.extend(d.finish());
        got
    };
    let whole = decode(&[input]);
    for cut in 0..=input.len() {
        assert_eq!(decode(&[&input[..cut], &input[cut..]]), whole, "split at byte {cut}");
    }
    let bytes: Vec<&[u8]> = input.iter().map(std::slice::from_ref).collect();
    assert_eq!(decode(&bytes), whole, "byte by byte");
    whole
}

#[test]
fn an_overlong_line_or_event_is_dropped_and_the_stream_goes_on() {
    let too_long = Frame::TooLong { limit: 16 };
    // One endless line: dropped, said once; the next event is read.
    let frames = limited_every_split(b"data: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n\ndata: ok\n\n", 16);
    assert_eq!(frames, [too_long.clone(), ev("ok")]);
    // Many short data lines adding up past the limit: the event goes.
    let frames = limited_every_split(b"data: 12345\ndata: 12345\ndata: 12345\ndata: 12345\n\ndata: next\n\n", 16);
    assert_eq!(frames, [too_long.clone(), ev("next")]);
    // Within the limit, nothing changes.
    assert_eq!(limited_every_split(b"data: 1234567\n\n", 16), [ev("1234567")]);
    // An overlong line the body ends in is not read at the end either.
    assert_eq!(limited_every_split(b"data: ok\n\ndata: bbbbbbbbbbbbbbbbbbbbbbbb", 16), [ev("ok"), too_long]);
}

#[test]
fn a_hostile_endless_line_is_never_held() {
    let mut d = Decoder::with_limit(1024);
    let mut said = 0;
    for _ in 0..10_000 {
        said += d.feed(&[b'x'; 4096]).len();
        assert!(d.line.len() <= 1024 && d.data.len() <= 1024);
    }
    assert_eq!(said, 1, "said once, not at every chunk");
    assert_eq!(Decoder::new().limit(), MAX_EVENT_BYTES);
}
