//! Whatever an MCP server or an authorization server sends, the parsers
//! of its metadata, challenges and answers do not panic, and what they
//! keep is no bigger than what came.

use air_oauth::AuthServer;
use air_oauth::challenge::bearer;
use air_oauth::discovery::ProtectedResource;
use air_oauth::url::{canonical_resource, query_pairs, resource_covers, split};
use proptest::prelude::*;
use serde_json::Value;

/// Any JSON value, with the keys these parsers read turning up often.
fn json() -> impl Strategy<Value = Value> {
    air_testgen::json(
        &["issuer", "authorization_endpoint", "token_endpoint", "registration_endpoint", "code_challenge_methods_supported", "resource", "authorization_servers", "scopes_supported"],
        &["S256", "https://as.example"],
    )
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
