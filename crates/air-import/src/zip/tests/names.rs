//! Which entries are read: by the last part of their name, never as a
//! path; what is left out is said.

use super::*;

fn conversation(id: &str) -> Vec<u8> {
    format!(r#"[{{"id":"{id}","title":"{id}","mapping":{{"n":{{"id":"n","parent":null,"message":{{"author":{{"role":"user"}},"content":{{"content_type":"text","parts":["hello {id}"]}}}}}}}}}}]"#)
        .into_bytes()
}

#[test]
fn names_that_look_like_paths_are_read_by_their_last_part() {
    let entries = [entry("../conversations.json", &conversation("a"), 8), entry("/etc/conversations-002.json", &conversation("b"), 8), entry("..\\..\\conversations-003.json", &conversation("c"), 0)];
    let zip = build(&entries, &Opts::default());
    let items = items(&zip).unwrap();
    let picked = plan(&items, LIMIT as u64).unwrap();
    assert_eq!(picked.read.len(), 3, "{:?}", names(&picked.read));
    assert!(picked.left_out.is_empty(), "{:?}", picked.left_out);
    let texts: Vec<serde_json::Value> = picked.read.iter().map(|i| serde_json::from_slice(&read(&zip, i, LIMIT).unwrap()).unwrap()).collect();
    let (_, _, summary) = crate::read(&texts, 1.0).unwrap();
    assert_eq!((summary.conversations, summary.messages), (3, 3));
}

fn named(name: &str) -> Item {
    Item { name: name.into(), method: 8, compressed: 1, size: 1, crc32: 0, local_offset: 0, encrypted: false }
}

/// Each its own bytes, as a ZIP's entries are.
fn apart(names: &[&str]) -> Vec<Item> {
    names.iter().enumerate().map(|(i, n)| Item { local_offset: i as u64 * 100, ..named(n) }).collect()
}

#[test]
fn wanted_entries_in_order() {
    let all = [
        "Export/conversations-10.json",
        "users.json",
        "projects.json",
        "Export/conversations-002.json",
        "a/b/conversations.json",
        "__MACOSX/conversations.json",
        "__MACOSX/Export/._conversations-000.json",
        "conversations/",
        "Export/conversations-x.json",
        "Export/conversations-.json",
        "Export/conversations-001.json.bak",
        "Export/conversations.json",
        "conversations.json",
        "Other\\conversations-000.json",
        "Export/conversations-0000000001.json",
        "shared_conversations.json",
    ];
    let items = apart(&all);
    let want = ["conversations.json", "Export/conversations.json", "Export/conversations-002.json", "Export/conversations-10.json", "Other\\conversations-000.json", "a/b/conversations.json"];
    assert_eq!(names(&wanted(&items)), want);
    let plan = plan(&items, 1 << 30).unwrap();
    assert_eq!(names(&plan.read), want);
    assert_eq!(
        plan.left_out,
        [
            "“__MACOSX/conversations.json” (a copy of a file's details macOS makes, not the file)",
            "“Export/conversations-x.json” (not a name an export gives its conversations)",
            "“Export/conversations-.json” (not a name an export gives its conversations)",
            "“Export/conversations-0000000001.json” (not a name an export gives its conversations)",
        ]
    );
}

#[test]
fn the_limits_are_on_all_the_entries_read_together() {
    // Each under the limit, more than it together.
    let mut items = apart(&["conversations-000.json", "conversations-001.json", "user.json"]);
    for i in &mut items {
        i.size = 600 << 20;
    }
    let err = plan(&items, 1 << 30).unwrap_err();
    assert_eq!(err, Error::TooLargeInAll { size: 1200 << 20, limit: 1 << 30 });
    assert!(err.to_string().contains("1258.3 MB"), "{err}");
    items[1].size = 10;
    assert_eq!(plan(&items, 1 << 30).map(|p| p.read.len()), Ok(2), "user.json is not read");
    // The compressed size counts when it is the larger (a lie about the size).
    items[1].compressed = 500 << 20;
    assert!(matches!(plan(&items, 1 << 30), Err(Error::TooLargeInAll { .. })));
    // Two entries naming the same bytes (each a bomb's): refused before either is read.
    let mut items = apart(&["a/conversations.json", "b/conversations.json"]);
    items[1].local_offset = items[0].local_offset;
    assert_eq!(plan(&items, 1 << 30).unwrap_err(), Error::SameBytes { name: "b/conversations.json".into(), other: "a/conversations.json".into() });
    // One that cannot be read refuses the ZIP from its directory.
    let mut items = apart(&["conversations.json"]);
    items[0].encrypted = true;
    assert!(matches!(plan(&items, 1 << 30), Err(Error::Encrypted { .. })));
    assert_eq!(plan(&apart(&["user.json", "__MACOSX/._conversations.json"]), 1 << 30), Err(Error::NoConversations));
}

#[test]
fn a_zip_whose_entries_are_all_one_bomb_is_refused_before_it_is_read() {
    let mut zip = build(&[entry("conversations.json", &vec![b' '; 4 << 20], 8)], &Opts::default());
    // A second directory entry naming the first one's bytes.
    let one = items(&zip).unwrap();
    assert_eq!(plan(&one, 6 << 20).map(|p| p.read.len()), Ok(1));
    let cd = zip.windows(4).position(|w| w == 0x0201_4b50u32.to_le_bytes()).unwrap();
    let eocd = zip.len() - 22;
    let mut second = zip[cd..eocd].to_vec();
    let at = second.windows(18).position(|w| w == b"conversations.json").unwrap();
    second[at..at + 18].copy_from_slice(b"conversations-1.js");
    second.splice(at + 18..at + 18, *b"on");
    second[28] += 2;
    zip.splice(eocd..eocd, second);
    let n = zip.len();
    zip[n - 12] = 2;
    zip[n - 14] = 2;
    let len = u32::from_le_bytes([zip[n - 10], zip[n - 9], zip[n - 8], zip[n - 7]]) * 2 + 2;
    zip[n - 10..n - 6].copy_from_slice(&len.to_le_bytes());
    let two = items(&zip).unwrap();
    assert_eq!(names(&two.iter().collect::<Vec<_>>()), ["conversations.json", "conversations-1.json"]);
    assert!(matches!(plan(&two, 16 << 20), Err(Error::SameBytes { .. })));
    assert!(matches!(plan(&two, 6 << 20), Err(Error::TooLargeInAll { .. })));
}
