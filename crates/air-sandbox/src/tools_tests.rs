use super::*;

fn csv() -> ChatFile {
    ChatFile { id: "f1".into(), name: "sales.csv".into(), mime: "text/csv".into(), size: 1536 }
}

#[test]
fn each_tool_names_the_chats_files_where_its_code_finds_them() {
    let js = def(Lang::JavaScript, &[csv()]);
    assert_eq!(js.name, "run_javascript");
    assert!(js.description.ends_with("The chat's files: sales.csv (text/csv, 1.5 KB)."), "{}", js.description);
    let py = def(Lang::Python, &[csv()]);
    assert!(py.description.ends_with("The chat's files: /mnt/data/sales.csv (text/csv, 1.5 KB)."), "{}", py.description);
    assert!(def(Lang::Python, &[]).description.ends_with("The chat has no files."));
    assert_eq!(py.input_schema["required"], json!(["code"]));
    assert!(py.input_schema["properties"]["packages"].is_object() && js.input_schema["properties"].get("packages").is_none());
    assert_eq!(air_tools::policy::default_policy(&py), air_tools::policy::Policy::Allow, "nothing to reach: runs without asking");
}

#[test]
fn arguments_are_checked_and_said_plainly() {
    let ok = request(Lang::Python, &json!({"code": "print(1)", "packages": ["numpy", "NumPy", "python-dateutil"]}));
    assert_eq!(ok, Ok(Request { lang: Lang::Python, code: "print(1)".into(), packages: vec!["numpy".into(), "python-dateutil".into()] }));
    assert_eq!(request(Lang::JavaScript, &json!({"code": "1", "packages": 5})).map(|r| r.packages), Ok(vec![]), "not JavaScript's");
    let refused = [
        (json!("print(1)"), ArgError::NotAnObject),
        (json!({}), ArgError::NoCode),
        (json!({"code": "  "}), ArgError::NoCode),
        (json!({"code": 7}), ArgError::NoCode),
        (json!({"code": "x".repeat(MAX_CODE + 1)}), ArgError::CodeTooLong(MAX_CODE + 1)),
        (json!({"code": "1", "packages": "numpy"}), ArgError::PackagesNotAList),
        (json!({"code": "1", "packages": ["../etc"]}), ArgError::BadPackage("../etc".into())),
        (json!({"code": "1", "packages": ["a b"]}), ArgError::BadPackage("a b".into())),
        (json!({"code": "1", "packages": vec!["p"; MAX_PACKAGES + 1]}), ArgError::TooManyPackages),
    ];
    for (args, why) in refused {
        assert_eq!(request(Lang::Python, &args), Err(why), "{args}");
    }
    assert_eq!(ArgError::CodeTooLong(7).to_string(), "\"code\" is 7 bytes; at most 100000 are run");
}

#[test]
fn sizes_read_as_people_read_them() {
    assert_eq!([size(0), size(1023), size(1024), size(1_572_864)], ["0 B", "1023 B", "1.0 KB", "1.5 MB"]);
}

proptest::proptest! {
    #[test]
    fn any_arguments_are_read_or_refused_never_a_panic(args in air_testgen::json(&["code", "packages"], &["print(1)", "numpy", ""])) {
        let _ = request(Lang::Python, &args);
        let _ = request(Lang::JavaScript, &args);
    }
}

#[test]
fn a_cards_code_is_read_from_its_call() {
    assert_eq!(code_of("run_python", r#"{"code": "print(1)\nx = 2"}"#), Some((Lang::Python, "print(1)\nx = 2".into())));
    assert_eq!(code_of("run_javascript", r#"{"code": "1"}"#), Some((Lang::JavaScript, "1".into())));
    assert_eq!(code_of("calculator", r#"{"code": "1"}"#), None, "not a code tool");
    assert_eq!(code_of("run_python", r#"{"code": 5}"#), None);
    assert_eq!(code_of("run_python", "not json"), None);
}
