use super::*;
use miniz_oxide::deflate::compress_to_vec;

mod names;

// The fixtures were made once with Python's `zipfile` (3.11):
// * `chatgpt-split.zip`: deflated `Export/conversations-00{0,1}.json`,
//   `Export/user.json`, `Export/chat.html`, a stored `Export/file-abc.png`,
//   the folder `Export/` and `__MACOSX/Export/._conversations-000.json`.
// * `claude-zip64-stream.zip`: `conversations.json`, `users.json`,
//   `projects.json` written to an unseekable stream with
//   `force_zip64=True`: data descriptors (flag bit 3, no sizes in the
//   local headers) and a ZIP64 extra field in the local headers only.
//
//     png = bytes.fromhex('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489') + b'\0' * 20
//     c0 = b'[{"title":"First","mapping":{}}' + b',{"title":"Again","mapping":{}}' * 20 + b']'
//     with zipfile.ZipFile('chatgpt-split.zip', 'w', zipfile.ZIP_DEFLATED) as z:
//         z.writestr('Export/', b'')
//         z.writestr('Export/conversations-001.json', '[{"title":"Second été","mapping":{}}]')
//         z.writestr('Export/conversations-000.json', c0)
//         z.writestr('Export/user.json', b'{"id":"user-1"}')
//         z.writestr(zipfile.ZipInfo('Export/file-abc.png'), png, compress_type=zipfile.ZIP_STORED)
//         z.writestr('__MACOSX/Export/._conversations-000.json', b'\x00\x05\x16\x07')
//         z.writestr('Export/chat.html', b'<html></html>')
//     class Unseekable:  # write() into a BytesIO, flush(); no seek/tell
//     with zipfile.ZipFile(Unseekable(), 'w', zipfile.ZIP_DEFLATED) as z:  # then save its bytes
//         for name, data in [('conversations.json', b'[{"uuid":"c1","chat_messages":[]}]'),
//                            ('users.json', b'[]'), ('projects.json', b'[]')]:
//             with z.open(name, 'w', force_zip64=True) as f:
//                 f.write(data)
const CHATGPT: &[u8] = include_bytes!("fixtures/chatgpt-split.zip");
const CLAUDE: &[u8] = include_bytes!("fixtures/claude-zip64-stream.zip");
const LIMIT: usize = 1 << 20;

fn chatgpt_part0() -> Vec<u8> {
    let mut s = String::from(r#"[{"title":"First","mapping":{}}"#);
    s.push_str(&r#",{"title":"Again","mapping":{}}"#.repeat(20));
    s.push(']');
    s.into_bytes()
}

// ---- a small ZIP writer ----

struct Entry {
    name: Vec<u8>,
    data: Vec<u8>,
    method: u16,
    flags: u16,
}

fn entry(name: &str, data: &[u8], method: u16) -> Entry {
    Entry { name: name.as_bytes().to_vec(), data: data.to_vec(), method, flags: 0 }
}

#[derive(Default)]
struct Opts {
    zip64: bool,
    descriptor: bool,
    comment: Vec<u8>,
}

fn put16(v: &mut Vec<u8>, x: u16) {
    v.extend_from_slice(&x.to_le_bytes());
}
fn put32(v: &mut Vec<u8>, x: u32) {
    v.extend_from_slice(&x.to_le_bytes());
}
fn put64(v: &mut Vec<u8>, x: u64) {
    v.extend_from_slice(&x.to_le_bytes());
}

fn build(entries: &[Entry], o: &Opts) -> Vec<u8> {
    let (mut out, mut central) = (Vec::new(), Vec::new());
    for e in entries {
        let body = if e.method == 8 { compress_to_vec(&e.data, 6) } else { e.data.clone() };
        let (crc, csize, usize_) = (crc32(&e.data), body.len() as u32, e.data.len() as u32);
        let utf8 = if std::str::from_utf8(&e.name).is_ok_and(|n| !n.is_ascii()) { 0x800 } else { 0 };
        let flags = e.flags | utf8 | if o.descriptor { 8 } else { 0 };
        let offset = out.len() as u32;
        put32(&mut out, 0x0403_4b50);
        for x in [45, flags, e.method, 0, 0x21] {
            put16(&mut out, x);
        }
        for x in if o.descriptor { [0, 0, 0] } else { [crc, csize, usize_] } {
            put32(&mut out, x);
        }
        put16(&mut out, e.name.len() as u16);
        put16(&mut out, 0);
        out.extend_from_slice(&e.name);
        out.extend_from_slice(&body);
        if o.descriptor {
            put32(&mut out, 0x0807_4b50);
            put32(&mut out, crc);
            if o.zip64 {
                put64(&mut out, u64::from(csize));
                put64(&mut out, u64::from(usize_));
            } else {
                put32(&mut out, csize);
                put32(&mut out, usize_);
            }
        }
        put32(&mut central, 0x0201_4b50);
        for x in [0x031e, 45, flags, e.method, 0, 0x21] {
            put16(&mut central, x);
        }
        let m = u32::MAX;
        let sizes = if o.zip64 { [crc, m, m] } else { [crc, csize, usize_] };
        for x in sizes {
            put32(&mut central, x);
        }
        for x in [e.name.len() as u16, if o.zip64 { 28 } else { 0 }, 0, 0, 0] {
            put16(&mut central, x);
        }
        put32(&mut central, 0);
        put32(&mut central, if o.zip64 { m } else { offset });
        central.extend_from_slice(&e.name);
        if o.zip64 {
            put16(&mut central, 1);
            put16(&mut central, 24);
            for x in [usize_, csize, offset] {
                put64(&mut central, u64::from(x));
            }
        }
    }
    end(out, &central, entries.len(), o)
}

fn end(mut out: Vec<u8>, central: &[u8], n: usize, o: &Opts) -> Vec<u8> {
    let (cd_at, cd_len) = (out.len(), central.len());
    out.extend_from_slice(central);
    if o.zip64 {
        let record = out.len() as u64;
        put32(&mut out, 0x0606_4b50);
        put64(&mut out, 44);
        put16(&mut out, 45);
        put16(&mut out, 45);
        put64(&mut out, 0);
        for x in [n, n, cd_len, cd_at] {
            put64(&mut out, x as u64);
        }
        put32(&mut out, 0x0706_4b50);
        put32(&mut out, 0);
        put64(&mut out, record);
        put32(&mut out, 1);
    }
    put32(&mut out, 0x0605_4b50);
    put32(&mut out, 0);
    let (count, size, at) = if o.zip64 { (0xFFFF, u32::MAX, u32::MAX) } else { (n as u16, cd_len as u32, cd_at as u32) };
    put16(&mut out, count);
    put16(&mut out, count);
    put32(&mut out, size);
    put32(&mut out, at);
    put16(&mut out, o.comment.len() as u16);
    out.extend_from_slice(&o.comment);
    out
}

// ---- reading as the page does ----

fn clamp(x: u64, len: usize) -> usize {
    usize::try_from(x).unwrap_or(usize::MAX).min(len)
}

fn tail_of(zip: &[u8], tail: u64) -> &[u8] {
    &zip[zip.len() - clamp(tail, zip.len())..]
}

fn items_with_tail(zip: &[u8], tail: u64) -> Result<Vec<Item>, Error> {
    match directory(tail_of(zip, tail), zip.len() as u64)? {
        Directory::Found(items) => Ok(items),
        Directory::NeedRange { offset, len, count } => {
            let from = clamp(offset, zip.len());
            let to = clamp(offset.saturating_add(len), zip.len());
            directory_at(&zip[from..to], count)
        }
    }
}

fn items(zip: &[u8]) -> Result<Vec<Item>, Error> {
    items_with_tail(zip, TAIL)
}

fn read(zip: &[u8], item: &Item, limit: usize) -> Result<Vec<u8>, Error> {
    check(item, limit)?;
    let (offset, len) = local_span(item);
    let from = clamp(offset, zip.len());
    extract(&zip[from..clamp(offset.saturating_add(len), zip.len())], item, limit)
}

fn names(items: &[&Item]) -> Vec<String> {
    items.iter().map(|i| i.name.clone()).collect()
}

fn find<'a>(items: &'a [Item], name: &str) -> &'a Item {
    items.iter().find(|i| i.name == name).unwrap()
}

// ---- the fixtures ----

#[test]
fn chatgpt_split_fixture() {
    let items = items(CHATGPT).unwrap();
    assert_eq!(items.len(), 7);
    assert!(find(&items, "Export/").is_dir());
    let want = wanted(&items);
    assert_eq!(names(&want), ["Export/conversations-000.json", "Export/conversations-001.json"]);
    assert_eq!(read(CHATGPT, want[0], LIMIT).unwrap(), chatgpt_part0());
    let part1 = read(CHATGPT, want[1], LIMIT).unwrap();
    assert_eq!(String::from_utf8(part1).unwrap(), r#"[{"title":"Second été","mapping":{}}]"#);
    let png = find(&items, "Export/file-abc.png");
    assert_eq!(png.method, 0);
    let png = read(CHATGPT, png, LIMIT).unwrap();
    assert_eq!((png.len(), &png[..4]), (53, &b"\x89PNG"[..]));
    for item in &items {
        read(CHATGPT, item, LIMIT).unwrap();
    }
}

#[test]
fn claude_zip64_stream_fixture() {
    let items = items(CLAUDE).unwrap();
    let want = wanted(&items);
    assert_eq!(names(&want), ["conversations.json"]);
    let conv = read(CLAUDE, want[0], LIMIT).unwrap();
    assert_eq!(conv, br#"[{"uuid":"c1","chat_messages":[]}]"#);
    assert_eq!(read(CLAUDE, find(&items, "users.json"), LIMIT).unwrap(), b"[]");
}

#[test]
fn central_directory_before_the_tail() {
    let found = items(CHATGPT).unwrap();
    for tail in [22, 40, 200] {
        let got = directory(tail_of(CHATGPT, tail), CHATGPT.len() as u64).unwrap();
        let Directory::NeedRange { offset, len, count } = got else { panic!("{got:?}") };
        assert_eq!(count, 7);
        let bytes = &CHATGPT[offset as usize..(offset + len) as usize];
        assert_eq!(directory_at(bytes, count).unwrap(), found);
        assert!(matches!(directory_at(bytes, count + 1), Err(Error::Damaged(_))));
    }
}

// ---- written here ----

fn sample() -> Vec<Entry> {
    vec![
        entry("conversations.json", &b"[{\"a\":1}]".repeat(50), 8),
        entry("notes.txt", b"stored as is", 0),
        entry("empty.json", b"", 8),
        Entry { name: "Exporté/über.json".into(), data: b"{}".to_vec(), method: 8, flags: 0 },
    ]
}

fn round_trip(o: &Opts) {
    let zip = build(&sample(), o);
    let items = items(&zip).unwrap();
    let names: Vec<&str> = items.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, ["conversations.json", "notes.txt", "empty.json", "Exporté/über.json"]);
    for (item, e) in items.iter().zip(sample()) {
        assert_eq!((item.method, item.size), (e.method, e.data.len() as u64));
        assert_eq!(read(&zip, item, LIMIT).unwrap(), e.data, "{}", item.name);
    }
}

#[test]
fn stored_and_deflated() {
    round_trip(&Opts::default());
}

#[test]
fn data_descriptors() {
    round_trip(&Opts { descriptor: true, ..Opts::default() });
}

#[test]
fn zip64_records_and_fields() {
    round_trip(&Opts { zip64: true, ..Opts::default() });
    round_trip(&Opts { zip64: true, descriptor: true, comment: b"a comment".to_vec() });
}

#[test]
fn the_tail_holds_the_longest_comment_and_the_zip64_records() {
    let mut entries = sample();
    entries.insert(0, entry("big.bin", &vec![7; 200_000], 0));
    let o = Opts { zip64: true, comment: vec![b'x'; 0xFFFF], ..Opts::default() };
    let zip = build(&entries, &o);
    assert!(zip.len() as u64 > TAIL + 100_000);
    let got = directory(tail_of(&zip, TAIL), zip.len() as u64).unwrap();
    assert!(matches!(got, Directory::NeedRange { count: 5, .. }), "{got:?}");
    let items = items(&zip).unwrap();
    assert_eq!(read(&zip, &items[0], LIMIT).unwrap().len(), 200_000);
}

#[test]
fn comments_and_trailing_bytes() {
    // A comment holding what looks like an end record: the real one is
    // the one whose comment ends the file.
    let mut fake = 0x0605_4b50u32.to_le_bytes().to_vec();
    fake.extend_from_slice(&[0xAA; 30]);
    let zip = build(&sample(), &Opts { comment: fake, ..Opts::default() });
    assert_eq!(items(&zip).unwrap().len(), 4);
    // Bytes after the end record (a careless tool): still read.
    let mut zip = build(&sample(), &Opts::default());
    zip.extend_from_slice(b"trailing");
    assert_eq!(items(&zip).unwrap().len(), 4);
}

#[test]
fn empty_zip() {
    let zip = build(&[], &Opts::default());
    assert_eq!(zip.len(), 22);
    assert_eq!(directory(&zip, 22).unwrap(), Directory::Found(Vec::new()));
}

#[test]
fn cp437_and_utf8_names() {
    let mut e = entry("x", b"1", 0);
    e.name = b"caf\x82.json".to_vec();
    let zip = build(&[e], &Opts::default());
    assert_eq!(items(&zip).unwrap()[0].name, "caf\u{FFFD}.json");
    let mut e = entry("x", b"1", 0);
    (e.name, e.flags) = (b"bad\xff.json".to_vec(), 0x800);
    let zip = build(&[e], &Opts::default());
    assert_eq!(items(&zip).unwrap()[0].name, "bad\u{FFFD}.json");
}

#[test]
fn crc_mismatch() {
    let mut zip = build(&[entry("a.json", b"hello, world", 0)], &Opts::default());
    let at = zip.windows(5).position(|w| w == b"hello").unwrap();
    zip[at] ^= 0x20;
    let items = items(&zip).unwrap();
    let err = read(&zip, &items[0], LIMIT).unwrap_err();
    assert_eq!(err, Error::Crc { name: "a.json".into() });
    assert!(err.to_string().contains("“a.json”"), "{err}");
}

#[test]
fn zip_bomb_is_refused() {
    let zip = build(&[entry("conversations.json", &vec![0; 10 << 20], 8)], &Opts::default());
    assert!(zip.len() < 100_000);
    let items = items(&zip).unwrap();
    let err = read(&zip, &items[0], LIMIT).unwrap_err();
    assert!(matches!(err, Error::TooLarge { size, .. } if size == 10 << 20), "{err}");
    assert!(err.to_string().contains("10.5 MB"), "{err}");
    let (offset, len) = local_span(&items[0]);
    let err = extract(&zip[offset as usize..clamp(offset + len, zip.len())], &items[0], LIMIT);
    assert!(matches!(err, Err(Error::TooLarge { .. })));
    // Lying about its size does not help: inflating stops one byte past it.
    let mut small = items[0].clone();
    small.size = 1000;
    let err = read(&zip, &small, LIMIT).unwrap_err();
    assert!(err.to_string().contains("more than its recorded size"), "{err}");
}

#[test]
fn truncated() {
    let half = &CHATGPT[..CHATGPT.len() / 2];
    assert_eq!(items(half), Err(Error::Truncated));
    let items = items(CHATGPT).unwrap();
    let item = &wanted(&items)[0];
    let (offset, _) = local_span(item);
    let cut = &CHATGPT[offset as usize..offset as usize + 40];
    assert_eq!(extract(cut, item, LIMIT), Err(Error::Truncated));
    assert_eq!(extract(&cut[..10], item, LIMIT), Err(Error::Truncated));
}

#[test]
fn not_a_zip() {
    for bytes in [&b""[..], b"PK", br#"{"conversations": []}"#, &[0u8; 70_000]] {
        assert_eq!(items(bytes), Err(Error::NotZip));
    }
    assert!(Error::NotZip.to_string().starts_with("This file is not a ZIP archive"));
}

#[test]
fn encrypted_entries_are_refused() {
    let mut e = entry("conversations.json", b"secret", 0);
    e.flags = 1;
    let zip = build(&[e], &Opts::default());
    let items = items(&zip).unwrap();
    assert!(items[0].encrypted);
    let err = read(&zip, &items[0], LIMIT).unwrap_err();
    assert_eq!(err, Error::Encrypted { name: "conversations.json".into() });
    assert!(err.to_string().contains("encrypted"));
    // Flagged in the local header only: refused too.
    let mut clear = items[0].clone();
    clear.encrypted = false;
    let (offset, len) = local_span(&clear);
    let local = &zip[offset as usize..clamp(offset + len, zip.len())];
    assert!(matches!(extract(local, &clear, LIMIT), Err(Error::Encrypted { .. })));
}

#[test]
fn other_methods_are_refused() {
    let zip = build(&[entry("conversations.json", b"BZh9...", 12)], &Opts::default());
    let items = items(&zip).unwrap();
    let err = read(&zip, &items[0], LIMIT).unwrap_err();
    assert_eq!(err, Error::Method { name: "conversations.json".into(), method: 12 });
    assert!(err.to_string().contains("method 12"));
}

#[test]
fn split_archives_are_refused() {
    let mut zip = build(&sample(), &Opts::default());
    let eocd = zip.len() - 22;
    zip[eocd + 4] = 1;
    assert_eq!(items(&zip), Err(Error::MultiDisk));
}

#[test]
fn crc32_check_value() {
    assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    assert_eq!(crc32(b""), 0);
}

#[test]
fn every_error_is_a_sentence() {
    let name = || "x.json".to_string();
    let errors = [
        Error::NotZip,
        Error::Truncated,
        Error::Damaged("its directory is out of place".into()),
        Error::MultiDisk,
        Error::Encrypted { name: name() },
        Error::Method { name: name(), method: 9 },
        Error::Crc { name: name() },
        Error::TooLarge { name: name(), size: 3_000_000, limit: 1_000_000 },
        Error::NoConversations,
        Error::TooLargeInAll { size: 3_000_000, limit: 1_000_000 },
        Error::SameBytes { name: name(), other: name() },
    ];
    for e in errors {
        let s = e.to_string();
        assert!(s.ends_with('.') && s.len() > 30, "{s}");
    }
}

// ---- hostile input ----

/// Every function on `zip` as the page would call them; errors are fine,
/// panics are not.
fn read_everything(zip: &[u8]) {
    for tail in [22, 64, 300] {
        let _ = items_with_tail(zip, tail);
    }
    if let Ok(items) = items(zip) {
        let _ = wanted(&items);
        let _ = plan(&items, 4096);
        for item in &items {
            let _ = read(zip, item, 4096);
            let (offset, _) = local_span(item);
            let _ = extract(&zip[clamp(offset, zip.len())..], item, 4096);
        }
    }
    let _ = directory_at(zip, 3);
    let _ = directory(zip, zip.len() as u64 + 1000);
    let _ = directory(zip, 0);
}

fn hostile(zip: &[u8]) {
    for cut in 0..zip.len() {
        read_everything(&zip[..cut]);
        read_everything(&zip[cut..]);
    }
    for at in 0..zip.len() {
        let changes: [fn(u8) -> u8; 4] = [|b| b ^ 0xFF, |_| 0, |_| 0xFF, |b| b ^ 1];
        for f in changes {
            let mut bad = zip.to_vec();
            bad[at] = f(bad[at]);
            read_everything(&bad);
        }
    }
}

#[test]
fn hostile_fixtures_never_panic() {
    hostile(CHATGPT);
    hostile(CLAUDE);
}

#[test]
fn hostile_written_zips_never_panic() {
    hostile(&build(&sample(), &Opts { zip64: true, descriptor: true, ..Opts::default() }));
}

proptest::proptest! {
    /// A few bytes changed at any places of a written ZIP: read without panic.
    #[test]
    fn zips_changed_at_random_never_panic(changes in proptest::collection::vec((proptest::prelude::any::<proptest::sample::Index>(), proptest::prelude::any::<u8>()), 1..24)) {
        let mut zip = build(&sample(), &Opts::default());
        for (at, byte) in changes {
            let at = at.index(zip.len());
            zip[at] = byte;
            read_everything(&zip);
        }
    }
}
