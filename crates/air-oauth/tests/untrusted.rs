//! Whatever an MCP server or an authorization server sends, the parsers
//! of its metadata, challenges and answers do not panic, and what they
//! keep is no bigger than what came.

use air_oauth::AuthServer;
use air_oauth::challenge::bearer;
use air_oauth::discovery::ProtectedResource;
use air_oauth::url::{canonical_resource, query_pairs, resource_covers, split};
use proptest::prelude::*;
use serde_json::{Map, Value};

/// Any JSON value, with the keys these parsers read turning up often.
fn json() -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        Just("issuer".to_owned()),
        Just("authorization_endpoint".to_owned()),
        Just("token_endpoint".to_owned()),
        Just("registration_endpoint".to_owned()),
        Just("code_challenge_methods_supported".to_owned()),
        Just("resource".to_owned()),
        Just("authorization_servers".to_owned()),
        Just("scopes_supported".to_owned()),
        ".{0,12}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<f64>().prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        prop_oneof![Just("S256".to_owned()), Just("https://as.example".to_owned()), ".{0,40}"].prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 64, 8, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..8).prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

proptest! {
    #[test]
    fn metadata_never_panics(v in json(), expected in proptest::option::of(".{0,30}")) {
        let text = v.to_string();
        if let Ok(server) = AuthServer::from_json(&v, expected.as_deref()) {
            // Every endpoint it keeps is one that may be used.
            prop_assert!(air_oauth::url::endpoint_ok(&server.token_endpoint));
            prop_assert!(server.issuer.len() <= text.len());
        }
        let _ = ProtectedResource::from_json(&v);
    }

    #[test]
    fn challenges_and_urls_never_panic(header in ".{0,200}", url in ".{0,120}", other in ".{0,120}") {
        if let Some(c) = bearer(&header) {
            let _ = (c.scope(), c.resource_metadata());
        }
        let _ = (split(&url), canonical_resource(&url), query_pairs(&url), resource_covers(&url, &other));
    }

    #[test]
    fn a_resource_only_covers_urls_on_its_own_origin(host in "[a-z]{1,8}(\\.[a-z]{1,8}){0,2}", tail in "[a-z./-]{0,12}", path in "(/[a-z-]{1,6}){0,3}") {
        let named = format!("https://{host}");
        let other = format!("https://{host}{tail}{path}");
        // A host that merely starts with the named one is someone else.
        if resource_covers(&named, &other) {
            prop_assert!(tail.is_empty() || tail.starts_with('/'), "{named} covered {other}");
        }
    }
}
