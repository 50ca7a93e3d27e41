use crate::attach::Attachment;
use crate::fake::{FakePlatform, Harness};
use crate::fake_tools::text as text_reply;
use crate::turn::Job;
use crate::{Command, Update};

fn harness() -> Harness {
    let p = FakePlatform::default();
    p.resources.borrow_mut().push(("docs".into(), "file:///a".into(), "<resource a>".into()));
    p.resources.borrow_mut().push(("docs".into(), "file:///b".into(), "<resource b>".into()));
    let mut h = Harness::new(p);
    h.send(Command::Start);
    h.take();
    h
}

fn attach(h: &mut Harness, uri: &str, label: &str) {
    h.send(Command::Attach(crate::attach::Action::Resource { server: "docs".into(), uri: uri.into(), label: label.into() }));
}

fn attached(ups: &[Update]) -> Option<Vec<Attachment>> {
    ups.iter().rev().find_map(|u| match u {
        Update::Attachments(list) => Some(list.clone()),
        _ => None,
    })
}

#[test]
fn a_resource_is_read_attached_and_subscribed_to() {
    let mut h = harness();
    attach(&mut h, "file:///a", "a");
    let ups = h.take();
    assert!(ups.contains(&Update::Attached("a".into())));
    let list = attached(&ups).expect("published");
    assert_eq!(list.len(), 1);
    assert_eq!((list[0].block.as_str(), list[0].live), ("<resource a>", true));
    assert_eq!(*h.p.subscriptions.borrow(), [("docs".to_owned(), "file:///a".to_owned(), true)]);
    // One that cannot be read is not attached, and the page says why.
    attach(&mut h, "file:///missing", "m");
    let ups = h.take();
    assert!(ups.iter().any(|u| matches!(u, Update::AttachFailed { label, error } if label == "m" && error.contains("not found"))));
    assert!(attached(&ups).is_none());
}

#[test]
fn a_changed_resource_is_read_again_only_while_attached() {
    let mut h = harness();
    attach(&mut h, "file:///a", "a");
    h.take();
    h.p.resources.borrow_mut()[0].2 = "<resource a, changed>".into();
    h.send(Command::Attach(crate::attach::Action::Changed { server: "docs".into(), uri: "file:///a".into() }));
    let list = attached(&h.take()).expect("read again");
    assert_eq!((list[0].block.as_str(), list[0].updates), ("<resource a, changed>", 1));
    h.send(Command::Attach(crate::attach::Action::Detach("a".into())));
    let reads = h.p.reads.get();
    h.send(Command::Attach(crate::attach::Action::Changed { server: "docs".into(), uri: "file:///a".into() }));
    assert_eq!(h.p.reads.get(), reads, "not attached: not read");
    // Taken off: its subscription ends.
    assert_eq!(h.p.subscriptions.borrow().last(), Some(&("docs".to_owned(), "file:///a".to_owned(), false)));
}

#[test]
fn a_subscription_that_arrives_after_the_resource_was_removed_is_ended() {
    let mut h = harness();
    h.p.hold_subscriptions.set(true);
    attach(&mut h, "file:///a", "a");
    h.send(Command::Attach(crate::attach::Action::Detach("a".into())));
    h.p.hold_subscriptions.set(false);
    h.run();
    let subs = h.p.subscriptions.borrow().clone();
    assert_eq!(subs, [("docs".to_owned(), "file:///a".to_owned(), true), ("docs".to_owned(), "file:///a".to_owned(), false)]);
    assert!(attached(&h.take()).is_some_and(|l| l.is_empty()));
}

#[test]
fn an_apps_context_replaces_what_it_said_before() {
    let mut h = harness();
    let context = |block: Option<&str>| Command::Attach(crate::attach::Action::Context { server: "app".into(), uri: "app-context:t1".into(), label: "View".into(), block: block.map(str::to_owned) });
    h.send(context(Some("first")));
    h.send(context(Some("second")));
    let list = attached(&h.take()).expect("published");
    assert_eq!(list.iter().map(|a| a.block.as_str()).collect::<Vec<_>>(), ["second"]);
    h.send(context(None));
    assert_eq!(attached(&h.take()), Some(vec![]), "nothing to say: taken off");
}

fn with_model(h: &mut Harness) {
    h.use_settings(crate::fake_tools::model(air_store::settings::ToolCalling::Native));
}

fn send(text: &str) -> Command {
    Command::Turn(crate::turn::Action::Start(Job::Send(text.into())))
}

/// A text file attached to the next message.
fn attach_notes(h: &mut Harness) {
    let read = crate::files::Read { name: "notes.txt".into(), mime: "text/plain".into(), bytes: b"<file notes.txt>".to_vec(), scaled: None };
    h.send(Command::Files(crate::files::Action::Read(vec![crate::files::prepare(Ok(read))])));
}

#[test]
fn a_message_carries_its_attachments_after_its_text_and_lets_go_of_them() {
    let mut h = harness();
    with_model(&mut h);
    attach(&mut h, "file:///a", "a");
    attach(&mut h, "file:///b", "b");
    attach_notes(&mut h);
    h.take();
    h.p.http.push(text_reply("Read them."));
    h.send(send("Summarize"));
    let body = h.p.http.requests().last().and_then(|r| r.body.clone()).unwrap_or_default();
    let (a, b, f) = (body.find("<resource a>"), body.find("<resource b>"), body.find("<file notes.txt>"));
    assert!(a < b && b < f && a.is_some(), "resources in order, then the files: {body}");
    let ups = h.take();
    assert_eq!(attached(&ups), Some(vec![]), "the composer has none left");
    assert!(ups.contains(&Update::Sent));
    let ended: Vec<_> = h.p.subscriptions.borrow().iter().filter(|(_, _, on)| !on).map(|(_, u, _)| u.clone()).collect();
    assert_eq!(ended, ["file:///a", "file:///b"]);
}

#[test]
fn a_message_not_saved_gets_its_attachments_back() {
    let mut h = harness();
    with_model(&mut h);
    attach(&mut h, "file:///a", "a");
    h.take();
    h.p.parts_missing.set(true);
    h.send(send("Summarize"));
    let ups = h.take();
    assert!(ups.contains(&Update::NotSent("Summarize".into())));
    let list = attached(&ups).expect("given back");
    assert_eq!(list.iter().map(|a| a.label.as_str()).collect::<Vec<_>>(), ["a"]);
    assert!(h.p.subscriptions.borrow().iter().all(|(_, _, on)| *on), "still subscribed");
    // Only resources: a message of attachments alone is sent too.
    h.p.parts_missing.set(false);
    h.p.http.push(text_reply("Done."));
    h.send(Command::Turn(crate::turn::Action::Start(Job::Send(String::new()))));
    assert!(h.take().contains(&Update::Sent));
}
