use air_store::files::Refusal;

use crate::fake::{FakePlatform, Harness};
use crate::fake_tools::text as reply;
use crate::files::{Kind, LocalFile, LocalKind, Prepared, Read, prepare};
use crate::turn::Job;
use crate::{Command, Notice, Update};

fn harness() -> Harness {
    let mut h = Harness::new(FakePlatform::default());
    h.send(Command::Start);
    h.use_settings(crate::fake_tools::model(air_store::settings::ToolCalling::Native));
    h.take();
    h
}

fn read(name: &str, mime: &str, bytes: &[u8]) -> Prepared {
    prepare(Ok(Read { name: name.into(), mime: mime.into(), bytes: bytes.to_vec(), scaled: None }))
}

fn png() -> Prepared {
    prepare(Ok(Read { name: "cat.png".into(), mime: "IMAGE/PNG".into(), bytes: vec![0x89, b'P', b'N', b'G'], scaled: Some((4000, 3000)) }))
}

fn files(ups: &[Update]) -> Option<Vec<LocalFile>> {
    ups.iter().rev().find_map(|u| match u {
        Update::Files(list) => Some(list.clone()),
        _ => None,
    })
}

#[test]
fn what_a_picked_file_becomes() {
    let Prepared::File { name, size, kind: Kind::Image { mime, scaled, .. } } = png() else { panic!("an image") };
    assert_eq!((name.as_str(), size, mime.as_str(), scaled), ("cat.png", 4, "image/png", Some((4000, 3000))));
    let Prepared::File { kind: Kind::Text { mime, bytes, cut }, .. } = read("a.rs", "", b"fn main() {}") else { panic!("text") };
    assert_eq!((mime.as_str(), bytes.as_slice(), cut), ("text/plain", &b"fn main() {}"[..], false));
    let Prepared::File { kind: Kind::Text { mime, .. }, .. } = read("d.csv", "text/csv", b"a,b") else { panic!("text") };
    assert_eq!(mime, "text/csv");
    assert_eq!(read("x.pdf", "application/pdf", b"%PDF\0"), Prepared::Refused { name: "x.pdf".into(), why: Refusal::NotText });
    assert_eq!(prepare(Err(("big.png".into(), "decode failed".into()))), Prepared::Unreadable { name: "big.png".into(), error: "decode failed".into() });
    assert!(crate::files::scalable("image/JPEG") && !crate::files::scalable("image/svg+xml"));
}

#[test]
fn files_are_attached_with_previews_or_refused_with_why() {
    let mut h = harness();
    h.send(Command::Files(crate::files::Action::Read(vec![
        png(),
        read("x.pdf", "application/pdf", b"%PDF\0"),
        read("notes.md", "text/markdown", b"# Hi"),
        Prepared::Unreadable { name: "gone.txt".into(), error: "NotFoundError".into() },
    ])));
    let ups = h.take();
    assert!(ups.contains(&Update::Notice(Notice::FileRefused { name: "x.pdf".into(), why: Refusal::NotText })));
    assert!(ups.contains(&Update::Notice(Notice::FileUnreadable { name: "gone.txt".into(), error: "NotFoundError".into() })));
    let list = files(&ups).expect("the list");
    assert_eq!(list.iter().map(|f| (f.key, f.name.as_str())).collect::<Vec<_>>(), [(0, "cat.png"), (1, "notes.md")]);
    let LocalKind::Image { url, .. } = &list[0].kind else { panic!("an image") };
    assert_eq!(*h.p.previews.borrow(), std::slice::from_ref(url));
    // Keys stay unique after one is taken off.
    h.send(Command::Files(crate::files::Action::Remove(0)));
    assert_eq!(*h.p.forgotten.borrow(), std::slice::from_ref(url), "its preview is let go of");
    h.send(Command::Files(crate::files::Action::Read(vec![read("b.txt", "text/plain", b"b")])));
    let keys: Vec<_> = files(&h.take()).expect("the list").iter().map(|f| f.key).collect();
    assert_eq!(keys, [1, 2]);
}

#[test]
fn a_message_takes_its_files_and_lets_their_previews_go_once_saved() {
    let mut h = harness();
    h.send(Command::Files(crate::files::Action::Read(vec![png(), read("notes.md", "", b"# Plan")])));
    h.take();
    h.p.http.push(reply("Nice cat."));
    h.send(Command::Turn(crate::turn::Action::Start(Job::Send("Look".into()))));
    let body = h.p.http.requests().last().and_then(|r| r.body.clone()).unwrap_or_default();
    assert!(body.contains("data:image/png;base64,iVBORw=="), "the image goes as an image: {body}");
    let (text, notes) = (body.find("Look"), body.find("File `notes.md`"));
    assert!(text.is_some() && text < notes, "the file's text after the message's: {body}");
    let ups = h.take();
    assert_eq!(files(&ups), Some(vec![]), "the composer has none left");
    assert!(ups.contains(&Update::Sent));
    assert!(h.p.previews.borrow().is_empty(), "previews let go of: {:?}", h.p.previews.borrow());
    // The stored message keeps both files, whole; its text is the user's.
    let store = &*h.p.store;
    let session = crate::fake::now(air_store::Store::list_sessions(store)).ok().and_then(|l| l.first().map(|s| s.id.clone())).unwrap_or_default();
    let messages = crate::fake::now(air_store::Store::messages(store, &session)).unwrap_or_default();
    let kept: Vec<_> = messages[0].attachments.iter().map(|f| (f.name.as_str(), f.mime.as_str(), f.size)).collect();
    assert_eq!(kept, [("cat.png", "image/png", 4), ("notes.md", "text/plain", 6)]);
    assert_eq!(messages[0].content, "Look");
    let notes = crate::fake::now(air_store::Store::get_file(store, &messages[0].attachments[1].id)).ok().flatten().map(|f| f.bytes);
    assert_eq!(notes.as_deref(), Some(&b"# Plan"[..]));
}

#[test]
fn files_alone_are_a_message_and_come_back_when_it_is_not_saved() {
    let mut h = harness();
    h.send(Command::Files(crate::files::Action::Read(vec![png()])));
    let before = files(&h.take()).expect("the list");
    h.p.parts_missing.set(true);
    h.send(Command::Turn(crate::turn::Action::Start(Job::Send(String::new()))));
    let ups = h.take();
    assert!(ups.contains(&Update::NotSent(String::new())), "files alone are sent: {ups:?}");
    assert_eq!(files(&ups), Some(before), "given back as they were");
    assert!(h.p.forgotten.borrow().is_empty(), "their previews kept");
    // With nothing attached, an empty message is nothing to send.
    h.send(Command::Files(crate::files::Action::Remove(0)));
    h.take();
    h.send(Command::Turn(crate::turn::Action::Start(Job::Send("  ".into()))));
    assert!(!h.take().contains(&Update::Busy(true)));
}
