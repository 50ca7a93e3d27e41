use serde_json::json;

use crate::Lang;
use crate::files::{Dropped, OutFile};
use crate::run::{End, Outcome};

fn outcome(end: End) -> Outcome {
    Outcome { lang: Lang::Python, end, stdout: String::new(), stderr: String::new(), value: None, cut: 0, files: Vec::new(), dropped: Vec::new(), ran_ms: Some(12.4) }
}

#[test]
fn the_model_reads_how_it_ended_what_it_printed_and_what_it_gave() {
    let mut o = outcome(End::Finished);
    o.stdout = "mean 4.5\n".into();
    o.stderr = "warning\n".into();
    o.value = Some("4.5".into());
    o.files = vec![OutFile { name: "plot.png".into(), mime: "image/png", bytes: vec![1, 2, 3] }, OutFile { name: "out.csv".into(), mime: "text/csv", bytes: vec![b'a'; 2048] }];
    o.dropped = vec![Dropped::TooMany { name: "x.txt".into(), limit: 20 }];
    o.cut = 12;
    let expected = "Python ran to its end in 12 ms.\nstdout:\nmean 4.5\nstderr:\nwarning\nvalue: 4.5\n\
                    Files given back to the user: plot.png (image/png, 3 B), out.csv (text/csv, 2.0 KB).\n\
                    Files not kept: x.txt: more than 20 files.\n\
                    (12 characters of output were left out: print less, or write it to a file.)";
    assert_eq!(o.model_text(), expected);
    let out = o.output();
    assert!(!out.is_error);
    assert_eq!(out.content, [air_tools::Content::Text { text: expected.into() }], "the files go as files, not as the model's content");
    let files: Vec<_> = out.files.iter().map(|f| (f.name.as_str(), f.mime.as_str(), f.bytes.len())).collect();
    assert_eq!(files, [("plot.png", "image/png", 3), ("out.csv", "text/csv", 2048)]);
    assert_eq!(out.structured, Some(json!({"sandbox": {"lang": "python", "end": "finished", "ranMs": 12.4}})));
}

#[test]
fn every_other_end_is_an_error_the_model_can_act_on() {
    let cases = [
        (End::Raised { name: "KeyError".into(), message: "'B'".into() }, "The code raised KeyError: 'B'"),
        (End::TimedOut { limit_ms: 60_000 }, "Stopped at the time limit of 60 s: the code ran too long (an endless loop?)."),
        (End::Stalled { ms: 60_000 }, "Python could not be made ready: no progress for 60 s."),
        (End::Stopped, "Stopped by the user."),
        (End::Crashed("out of memory".into()), "The sandbox stopped: out of memory"),
        (End::Missing { packages: vec!["pandas".into()], available: vec![] }, "Not run: this site does not offer pandas. Packages it offers: none."),
        (End::Missing { packages: vec!["pandas".into()], available: vec!["micropip".into(), "six".into()] }, "Not run: this site does not offer pandas. Packages it offers: micropip, six."),
    ];
    for (end, text) in cases {
        let o = outcome(end);
        assert_eq!(o.model_text(), text);
        let out = o.output();
        assert!(out.is_error, "{text}");
        assert_eq!(out.structured.as_ref().map(|s| s["sandbox"]["end"] != "finished"), Some(true));
    }
}
