use super::*;

#[test]
fn urls_are_taken_apart() {
    let p = split("HTTPS://api.example.com:8443/v1/pets?limit=1").unwrap();
    assert_eq!(p, Parts { scheme: "https", host: "api.example.com", port: Some("8443"), path: "/v1/pets", query: Some("limit=1") });
    let p = split("http://[::1]:3000").unwrap();
    assert_eq!((p.host, p.port, p.path, p.query), ("[::1]", Some("3000"), "", None));
    assert_eq!(split("https://x.test?q").unwrap().query, Some("q"));
}

#[test]
fn malformed_urls_say_what_is_wrong() {
    let cases: &[(&str, UrlError)] = &[
        ("", UrlError::Blank),
        ("https://a b.test/", UrlError::Blank),
        ("https://x.test/\n", UrlError::Blank),
        ("api.example.com/v1", UrlError::NotAbsolute),
        ("/v1/pets", UrlError::NotAbsolute),
        ("javascript:alert(1)", UrlError::NotAbsolute),
        ("ftp://x.test/a", UrlError::Scheme("ftp".into())),
        ("https:///path", UrlError::NoHost),
        ("https://:443/path", UrlError::NoHost),
        ("https://user:pw@x.test/", UrlError::Credentials),
        ("https://x.test@evil.test/", UrlError::Credentials),
        ("https://x!.test/", UrlError::BadHost),
        ("https://[zz]/", UrlError::BadHost),
        ("https://x.test:80a/", UrlError::BadPort),
        ("https://x.test:/", UrlError::BadPort),
        ("https://x.test/a#frag", UrlError::Fragment),
        ("https://{tenant}.x.test/a", UrlError::ParamInHost),
        ("https://x.test:{port}/a", UrlError::ParamInHost),
    ];
    for (url, want) in cases {
        assert_eq!(split(url).as_ref().err(), Some(want), "{url}");
    }
    assert!(UrlError::Insecure.to_string().contains("localhost"));
    assert!(UrlError::Credentials.to_string().contains("header"));
}

#[test]
fn plain_http_only_reaches_this_machine() {
    for ok in ["https://api.example.com/x", "http://localhost:8080/x", "http://LOCALHOST/x", "http://127.0.0.1:9/x", "http://127.0.0.2/x", "http://[::1]/x", "http://app.localhost/x"] {
        assert!(check(ok).is_ok(), "{ok}");
    }
    for no in ["http://api.example.com/x", "http://127.0.0.1.nip.io/x", "http://localhost.evil.test/x", "http://10.0.0.1/x"] {
        assert_eq!(check(no).err(), Some(UrlError::Insecure), "{no}");
    }
}

#[test]
fn placeholders_are_found_in_order() {
    assert_eq!(placeholders("https://x/pets/{petId}/photos/{photo-id}?size={size}").unwrap(), ["petId", "photo-id", "size"]);
    assert_eq!(placeholders("https://x/a").unwrap(), Vec::<&str>::new());
    for bad in ["https://x/{a", "https://x/a}", "https://x/{}", "https://x/{a{b}}", "https://x/{a/b}"] {
        assert_eq!(placeholders(bad), Err(UrlError::Braces), "{bad}");
    }
}

#[test]
fn values_cannot_add_segments_or_parameters() {
    assert_eq!(encode("a-b_c.d~e09AZ"), "a-b_c.d~e09AZ");
    assert_eq!(encode("../admin"), "..%2Fadmin");
    assert_eq!(encode("a b&c=d#e?f"), "a%20b%26c%3Dd%23e%3Ff");
    assert_eq!(encode("上海"), "%E4%B8%8A%E6%B5%B7");
    assert_eq!(encode("100%"), "100%25");
}

#[test]
fn server_urls_resolve_against_the_document() {
    let doc = "https://petstore3.swagger.io/api/v3/openapi.json";
    assert_eq!(resolve(doc, "/api/v3").as_deref(), Some("https://petstore3.swagger.io/api/v3"));
    assert_eq!(resolve(doc, "v4").as_deref(), Some("https://petstore3.swagger.io/api/v3/v4"));
    assert_eq!(resolve(doc, "./").as_deref(), Some("https://petstore3.swagger.io/api/v3/"));
    assert_eq!(resolve(doc, "../v2").as_deref(), Some("https://petstore3.swagger.io/api/v2"));
    assert_eq!(resolve(doc, "../../../../x").as_deref(), Some("https://petstore3.swagger.io/x"));
    assert_eq!(resolve(doc, "//other.test/base").as_deref(), Some("https://other.test/base"));
    assert_eq!(resolve(doc, "https://abs.test/v1").as_deref(), Some("https://abs.test/v1"));
    assert_eq!(resolve("https://x.test", "/").as_deref(), Some("https://x.test/"));
    assert_eq!(resolve("https://x.test/a/b?q=1#f", "c?d=2").as_deref(), Some("https://x.test/a/c?d=2"));
    assert_eq!(resolve("file:///tmp/openapi.json", "/v1"), None);
    assert_eq!(resolve("openapi.json", "/v1"), None);
}
