use super::*;
use crate::Lang;

#[test]
fn a_name_is_its_last_segment_made_plain() {
    let cases = [
        ("out/plot.png", "plot.png"),
        ("../../etc/passwd", "passwd"),
        ("C:\\Users\\a\\r.csv", "r.csv"),
        (".bashrc", "bashrc"),
        ("a\u{0}b\nc.txt", "abc.txt"),
        ("x<y>:z\"|?*.md", "xyz.md"),
        ("/", "file"),
        ("...", "file"),
        ("", "file"),
    ];
    for (raw, kept) in cases {
        assert_eq!(plain_name(raw), kept, "{raw:?}");
    }
    assert_eq!(plain_name(&format!("{}.csv", "n".repeat(300))).chars().count(), 100, "the end is kept, with the extension");
}

#[test]
fn the_type_comes_from_the_name() {
    assert_eq!([mime_of("a.PNG"), mime_of("b.csv"), mime_of("c"), mime_of("d.exe")], ["image/png", "text/csv", "application/octet-stream", "application/octet-stream"]);
}

#[test]
fn files_past_the_limits_are_dropped_with_why_and_names_stay_unique() {
    let limits = Limits { files: 3, file_bytes: 10, total_file_bytes: 15, ..Limits::of(Lang::Python) };
    let written = vec![
        ("a.csv".to_owned(), vec![1; 4]),
        ("dir/A.csv".to_owned(), vec![2; 4]),
        ("big.bin".to_owned(), vec![0; 11]),
        ("c.txt".to_owned(), vec![3; 8]),
        ("d.txt".to_owned(), vec![4; 1]),
        ("e.txt".to_owned(), vec![5; 1]),
    ];
    let (kept, dropped) = keep(written, &limits);
    let names: Vec<&str> = kept.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["a.csv", "A (2).csv", "d.txt"]);
    assert_eq!(kept[1].mime, "text/csv");
    assert_eq!(
        dropped,
        [Dropped::TooLarge { name: "big.bin".into(), size: 11, limit: 10 }, Dropped::TooMuch { name: "c.txt".into(), limit: 15 }, Dropped::TooMany { name: "e.txt".into(), limit: 3 },]
    );
}

#[test]
fn the_chats_files_go_by_plain_names_the_latest_of_a_name_in_place() {
    let f = |id: &str, name: &str| ChatFile { id: id.into(), name: name.into(), mime: "text/csv".into(), size: 1 };
    let got = chat_files([f("1", "data.csv"), f("2", "../../lib/os.py"), f("3", "b.txt"), f("4", "DATA.csv")]);
    let seen: Vec<_> = got.iter().map(|c| (c.id.as_str(), c.name.as_str())).collect();
    assert_eq!(seen, [("2", "os.py"), ("3", "b.txt"), ("4", "DATA.csv")]);
    let many = chat_files((0..MAX_CHAT_FILES + 5).map(|i| f(&i.to_string(), &format!("{i}.csv"))));
    assert_eq!(many.len(), MAX_CHAT_FILES);
    assert_eq!(many[0].id, "5", "the latest are kept");
}
