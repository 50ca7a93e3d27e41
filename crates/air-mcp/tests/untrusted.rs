//! Whatever an MCP server sends, the parsers of its messages (tool lists,
//! results, elicitations, prompts, resources, pages to open) do not panic,
//! and what they keep is no bigger than what came.

use air_mcp::elicit::{fields, request_from};
use air_mcp::page_url::page_host;
use air_mcp::prompts::{completions, prompt_from, text_of};
use air_mcp::resources::{context_block, resource_from, template_from, variables};
use air_mcp::tool::{callable, checked_output, def_from, output_from};
use proptest::prelude::*;
use serde_json::Value;

/// Any JSON value, with the keys MCP messages carry turning up often.
fn json() -> impl Strategy<Value = Value> {
    air_testgen::json(
        &[
            "name",
            "description",
            "inputSchema",
            "outputSchema",
            "properties",
            "type",
            "content",
            "structuredContent",
            "text",
            "mode",
            "url",
            "requestedSchema",
            "uri",
            "uriTemplate",
            "messages",
            "_meta",
        ],
        &["object", "string", "text", "url"],
    )
}

proptest! {
    #[test]
    fn tools_and_results_never_panic(v in json(), schema in proptest::option::of(json())) {
        let size = v.to_string().len();
        if callable(&v)
            && let Some(def) = def_from("server", "mcp_server_tool".into(), &v) {
                prop_assert!(def.description.len() <= size);
            }
        let out = output_from(&v);
        prop_assert!(out.model_text().len() <= size * 4 + 64);
        let _ = checked_output(&v, schema.as_ref());
    }

    #[test]
    fn questions_prompts_and_resources_never_panic(v in json(), template in ".{0,60}") {
        if let Ok(request) = request_from(&v) {
            let _ = request.message();
        }
        let _ = fields(&v);
        let _ = (prompt_from(&v), text_of(&v), completions(&v));
        let _ = (resource_from(&v), template_from(&v), context_block(&v), variables(&template));
    }

    #[test]
    fn a_page_to_open_is_named_by_the_host_it_reaches(url in ".{0,80}") {
        if let Ok(host) = page_host(&url) {
            // Never anything that could hide another host.
            prop_assert!(!host.contains(['@', '\\', ' ', '/']), "{url} → {host}");
            prop_assert!(host.is_ascii());
        }
    }
}
