use super::*;

fn rows(ids: std::ops::Range<usize>, h: f64) -> Vec<(String, f64)> {
    ids.map(|i| (format!("m{i}"), h)).collect()
}

/// 1,000 rows of 100 px, a 500 px view, 200 px drawn beyond it.
fn thousand() -> Viewport {
    let mut v = Viewport::new(200.0);
    v.set_rows(rows(0..1000, 100.0));
    v.resized(500.0);
    v
}

#[test]
fn a_list_opens_at_its_end_with_only_the_rows_near_the_view_drawn() {
    let v = thousand();
    assert_eq!(v.total(), 100_000.0);
    assert_eq!(v.wanted_top(), 99_500.0);
    let r = v.range();
    // 99,300..100,000: rows 993..1000.
    assert_eq!((r.first, r.last), (993, 1000));
    assert_eq!((r.above, r.below), (99_300.0, 0.0));
    assert!(!v.near_start());
}

#[test]
fn following_the_end_draws_the_last_rows_wherever_the_page_scrolled() {
    let mut v = thousand();
    // An answer streaming below the list took the view 40,000 px past it.
    v.scrolled(140_000.0, 500.0, Anchor::End);
    assert_eq!((v.range().first, v.range().last), (993, 1000));
    // Saved, it is listed (estimated 3,000 px) and drawn at once.
    let mut listed = rows(0..1000, 100.0);
    listed.push(("answer".into(), 3_000.0));
    v.set_rows(listed);
    let r = v.range();
    assert_eq!((r.first, r.last), (1000, 1001));
    assert_eq!(r.below, 0.0);
    // Read from the middle, the view's own top counts.
    v.scrolled(5_050.0, 500.0, Anchor::Row { id: "m50".into(), offset: 50.0 });
    assert_eq!(v.range().first, 48);
}

#[test]
fn the_range_follows_the_view_and_the_space_stands_for_the_rest() {
    let mut v = thousand();
    v.scrolled(5_050.0, 500.0, Anchor::Row { id: "m50".into(), offset: 50.0 });
    let r = v.range();
    // 4,850..5,750: rows 48 (4,800..4,900) to 57 (5,700..5,800).
    assert_eq!((r.first, r.last), (48, 58));
    assert_eq!(r.above, 4_800.0);
    assert_eq!(r.below, 100_000.0 - 5_800.0);
    assert_eq!(r.above + (r.last - r.first) as f64 * 100.0 + r.below, v.total());
}

#[test]
fn rows_added_above_keep_the_row_being_read_in_place() {
    let mut v = Viewport::new(200.0);
    v.set_rows(rows(100..200, 100.0));
    v.resized(500.0);
    v.scrolled(30.0, 500.0, Anchor::Row { id: "m100".into(), offset: 30.0 });
    assert!(v.near_start());
    // The page before: 100 rows estimated at 80 px.
    v.set_rows(rows(0..100, 80.0).into_iter().chain(rows(100..200, 100.0)));
    assert_eq!(v.top_of("m100"), Some(8_000.0));
    assert_eq!(v.wanted_top(), 8_030.0);
    let r = v.range();
    assert!(r.first < 100 && r.last > 100, "the row read is still drawn: {r:?}");
    assert!(!v.near_start());
}

#[test]
fn a_measured_height_replaces_the_estimate_and_survives_a_new_listing() {
    let mut v = thousand();
    assert!(v.measured("m10", 250.0));
    assert!(!v.measured("m10", 250.2), "under half a pixel is no change");
    assert!(!v.measured("gone", 10.0));
    assert_eq!(v.top_of("m11"), Some(1_250.0));
    assert_eq!(v.total(), 100_150.0);
    // Listed again (a message saved at the end): the measure stays.
    v.set_rows(rows(0..1001, 100.0));
    assert_eq!(v.top_of("m11"), Some(1_250.0));
    // A row that left the list forgets its measure.
    v.set_rows(rows(11..1001, 100.0));
    v.set_rows(rows(0..1001, 100.0));
    assert_eq!(v.top_of("m11"), Some(1_100.0));
}

#[test]
fn rows_measured_above_the_row_read_move_where_the_view_must_be() {
    let mut v = thousand();
    v.scrolled(5_000.0, 500.0, Anchor::Row { id: "m50".into(), offset: 0.0 });
    v.measured("m48", 40.0);
    v.measured("m49", 300.0);
    assert_eq!(v.wanted_top(), 5_140.0);
    // Below it: no move.
    v.measured("m51", 10.0);
    assert_eq!(v.wanted_top(), 5_140.0);
}

#[test]
fn a_row_jumped_to_is_drawn_a_little_below_the_view_top() {
    let mut v = thousand();
    assert!(v.show("m3"));
    assert_eq!(v.anchor(), &Anchor::Row { id: "m3".into(), offset: -125.0 });
    assert_eq!(v.wanted_top(), 175.0);
    let r = v.range();
    assert!(r.first == 0 && r.last >= 9, "{r:?}");
    assert!(v.near_start());
    // The first row cannot be put lower than the list's top.
    v.show("m0");
    assert_eq!(v.wanted_top(), 0.0);
    assert!(!v.show("nowhere"));
    v.follow();
    assert_eq!(v.wanted_top(), 99_500.0);
}

#[test]
fn a_removed_anchor_row_hands_its_place_to_the_row_now_there() {
    let mut v = thousand();
    v.scrolled(5_020.0, 500.0, Anchor::Row { id: "m50".into(), offset: 20.0 });
    let kept: Vec<_> = rows(0..1000, 100.0).into_iter().filter(|(id, _)| id != "m50").collect();
    v.set_rows(kept);
    assert_eq!(v.anchor(), &Anchor::Row { id: "m51".into(), offset: 20.0 });
    assert_eq!(v.wanted_top(), 5_020.0);
    // Everything gone: the end.
    v.set_rows(Vec::new());
    assert_eq!(v.anchor(), &Anchor::End);
    assert_eq!(v.range(), Range { first: 0, last: 0, above: 0.0, below: 0.0 });
    assert_eq!(v.row_at(10.0), None);
}

#[test]
fn a_short_list_is_drawn_whole_and_is_at_its_end() {
    let mut v = Viewport::new(200.0);
    v.set_rows(rows(0..3, 100.0));
    v.resized(800.0);
    assert_eq!(v.wanted_top(), 0.0);
    assert_eq!(v.range(), Range { first: 0, last: 3, above: 0.0, below: 0.0 });
    assert!(!v.near_start(), "following the end reads nothing older");
}

#[test]
fn the_row_at_a_point() {
    let v = thousand();
    assert_eq!(v.row_at(0.0), Some("m0"));
    assert_eq!(v.row_at(99.9), Some("m0"));
    assert_eq!(v.row_at(100.0), Some("m1"));
    assert_eq!(v.row_at(1e9), Some("m999"));
    assert_eq!(v.row_at(-5.0), Some("m0"));
}

#[test]
fn estimates_grow_with_the_text() {
    assert!(estimate(0) < estimate(200));
    assert!(estimate(20_000) > 20.0 * estimate(200));
}

#[test]
fn near_the_end_of_a_stretch_read_from_the_middle_later_rows_are_due() {
    let mut v = thousand();
    assert!(!v.near_end(), "following the end reads nothing later");
    v.scrolled(99_000.0, 500.0, Anchor::Row { id: "m990".into(), offset: 0.0 });
    assert!(v.near_end());
    v.scrolled(98_000.0, 500.0, Anchor::Row { id: "m980".into(), offset: 0.0 });
    assert!(!v.near_end());
}
