use crate::fake::{FakePlatform, Harness};
use crate::platform::Part;
use crate::{Command, Notice, Update};

/// The provider's model lists asked for twice before their code is here:
/// both asks are handled once it is, in order; without it, the user is
/// told, and the next ask fetches it again.
#[test]
fn commands_wait_for_their_code_in_order_and_a_missing_part_is_said() {
    let mut h = Harness::new(FakePlatform::default());
    h.send(Command::Start);
    h.take();
    h.p.missing.borrow_mut().push(Part::Later);
    let want = |h: &mut Harness| h.send(Command::Models(crate::models::Action::Want(Box::new(crate::fake_tools::model(air_store::settings::ToolCalling::Native)))));
    want(&mut h);
    let ups = h.take();
    assert!(ups.contains(&Update::Notice(Notice::PartMissing)), "{ups:?}");
    assert!(!ups.iter().any(|u| matches!(u, Update::ModelLists(_))), "nothing was handled: {ups:?}");

    h.p.missing.borrow_mut().clear();
    want(&mut h);
    let ups = h.take();
    assert!(!ups.contains(&Update::Notice(Notice::PartMissing)), "{ups:?}");
    assert!(ups.iter().any(|u| matches!(u, Update::ModelLists(_))), "handled once its code is here: {ups:?}");
}

/// While the code is on its way, the commands for it wait, and are
/// handled in the order they came once it is here.
#[test]
fn commands_that_come_while_the_code_is_fetched_are_handled_after_in_order() {
    let mut h = Harness::new(FakePlatform::default());
    h.send(Command::Start);
    h.take();
    h.p.hold(crate::platform::Part::Later);
    let settings = crate::fake_tools::model(air_store::settings::ToolCalling::Native);
    h.send(Command::Models(crate::models::Action::Want(Box::new(settings.clone()))));
    h.send(Command::HttpTools(crate::http_tools::Action::Switch { name: "none".into(), on: false }));
    assert!(!h.take().iter().any(|u| matches!(u, Update::ModelLists(_))), "not handled yet");
    h.p.release(crate::platform::Part::Later);
    h.run();
    let ups = h.take();
    assert!(ups.iter().any(|u| matches!(u, Update::ModelLists(_))), "handled once here: {ups:?}");
}
