use super::*;

const LOCK_TEXT: &str = r#"{
  "info": {"python": "3.14.2"},
  "packages": {
    "micropip": {"name": "micropip", "file_name": "micropip-0.11.1-py3-none-any.whl", "imports": ["micropip"], "sha256": "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD"},
    "python-dateutil": {"name": "python-dateutil", "file_name": "python_dateutil-2.9.0-py2.py3-none-any.whl", "imports": ["dateutil"]},
    "evil": {"name": "evil", "file_name": "../../index.html", "imports": ["evil"]},
    "abs": {"name": "abs", "file_name": "https://example.com/x.whl", "imports": ["abs"]},
    "libopenblas": {"name": "libopenblas", "file_name": "libopenblas-0.3.31.zip", "package_type": "shared_library"}
  }
}"#;

#[test]
fn the_lockfile_lists_what_the_site_offers_and_nothing_outside_its_folder() {
    let site = Site::parse(LOCK_TEXT.as_bytes()).expect("a lockfile");
    assert_eq!(site.python, "3.14.2");
    assert_eq!(site.offered(), ["libopenblas", "micropip", "python-dateutil"]);
    assert!(site.servable("pyodide.asm.wasm") && site.servable(LOCK) && site.servable("micropip-0.11.1-py3-none-any.whl"));
    // A path, a URL or a name the lockfile does not give is never fetched.
    for file in ["../../index.html", "https://example.com/x.whl", "index.html", "numpy-2.4.6.whl", "", ".."] {
        assert!(!site.servable(file), "{file}");
    }
}

#[test]
fn packages_are_found_by_name_or_module_as_pep_503_compares_them() {
    let site = Site::parse(LOCK_TEXT.as_bytes()).expect("a lockfile");
    let wanted: Vec<String> = ["Python_Dateutil", "dateutil", "MICROPIP", "numpy", "evil"].map(String::from).into();
    assert_eq!(site.missing(&wanted), ["numpy", "evil"]);
}

#[test]
fn a_lockfile_that_cannot_be_read_says_why() {
    assert!(matches!(Site::parse(b"<html>"), Err(LockError::NotJson(_))));
    assert_eq!(Site::parse(br#"{"info": {}}"#), Err(LockError::NoPackages));
    assert_eq!(Site::parse(&vec![b' '; MAX_LOCK + 1]), Err(LockError::TooLarge(MAX_LOCK + 1)));
    // The npm package's own lockfile shape with no packages: Python with its standard library only.
    assert_eq!(Site::parse(br#"{"packages": {}}"#).map(|s| s.offered().len()), Ok(0));
}

#[test]
fn a_packages_file_is_given_to_python_only_when_it_is_what_the_lockfile_says() {
    let site = Site::parse(LOCK_TEXT.as_bytes()).expect("a lockfile");
    // sha256("abc"), written in upper case in the lockfile.
    assert_eq!(site.check("micropip-0.11.1-py3-none-any.whl", b"abc"), Ok(()));
    let tampered = site.check("micropip-0.11.1-py3-none-any.whl", b"abd").expect_err("tampered");
    assert!(tampered.starts_with("micropip-0.11.1-py3-none-any.whl failed its integrity check: its SHA-256 is a52d159f"), "{tampered}");
    // No hash in the lockfile: nothing matches it.
    assert!(site.check("python_dateutil-2.9.0-py2.py3-none-any.whl", b"").is_err());
    // The runtime's own files are not in the lockfile.
    assert_eq!(site.check("pyodide.asm.wasm", b"anything"), Ok(()));
}
