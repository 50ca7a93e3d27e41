//! Resources (`resources/list`, `resources/templates/list`,
//! `resources/read`): what a server offers to read, templates filled in,
//! and what was read as a block of context for a message.

use serde_json::Value;

use crate::str_field as s;

/// A resource as listed.
#[derive(Debug, Clone, PartialEq)]
pub struct Resource {
    pub uri: String,
    /// The title, else the name, else the URI.
    pub label: String,
    pub mime: Option<String>,
    pub description: Option<String>,
}

/// A resource template (RFC 6570, `{var}` form).
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    pub uri_template: String,
    pub label: String,
    pub description: Option<String>,
    /// Its variables, in order.
    pub vars: Vec<String>,
}

pub fn resource_from(v: &Value) -> Option<Resource> {
    let uri = s(v, "uri")?;
    Some(Resource { label: s(v, "title").or_else(|| s(v, "name")).unwrap_or_else(|| uri.clone()), uri, mime: s(v, "mimeType"), description: s(v, "description") })
}

pub fn template_from(v: &Value) -> Option<Template> {
    let uri_template = s(v, "uriTemplate")?;
    let vars = variables(&uri_template);
    Some(Template { label: s(v, "title").or_else(|| s(v, "name")).unwrap_or_else(|| uri_template.clone()), uri_template, description: s(v, "description"), vars })
}

/// The variable names of a template (`{a}`, `{+a}`, `{a,b}` all count).
pub fn variables(template: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        let Some(end) = rest[start..].find('}') else { break };
        let inner = rest[start + 1..start + end].trim_start_matches(['+', '#', '/', '.', ';', '?', '&']);
        for name in inner.split(',').map(|n| n.trim_end_matches('*').trim()) {
            if !name.is_empty() && !out.iter().any(|o| o == name) {
                out.push(name.to_owned());
            }
        }
        rest = &rest[start + end + 1..];
    }
    out
}

/// The template with each `{var}` replaced by its value, percent-encoded
/// (unreserved characters kept).
pub fn expand(template: &str, values: &[(String, String)]) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        let Some(end) = rest[start..].find('}') else { break };
        out.push_str(&rest[..start]);
        let inner = &rest[start + 1..start + end];
        let reserved = inner.starts_with('+');
        let names = inner.trim_start_matches(['+', '#', '/', '.', ';', '?', '&']);
        let parts: Vec<String> = names.split(',').filter_map(|n| values.iter().find(|(k, _)| k == n.trim_end_matches('*').trim()).map(|(_, v)| encode(v, reserved))).collect();
        out.push_str(&parts.join(","));
        rest = &rest[start + end + 1..];
    }
    out.push_str(rest);
    out
}

fn encode(v: &str, keep_reserved: bool) -> String {
    let mut out = String::new();
    for b in v.bytes() {
        let keep = b.is_ascii_alphanumeric() || b"-._~".contains(&b) || (keep_reserved && b":/?#[]@!$&'()*+,;=".contains(&b));
        if keep {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// What `resources/read` returned, as context for the model: each text
/// content in a `<resource>` block; binary contents by their size only.
pub fn context_block(result: &Value) -> String {
    let mut blocks = Vec::new();
    for c in result.get("contents").and_then(Value::as_array).into_iter().flatten() {
        let uri = s(c, "uri").unwrap_or_default();
        let mime = s(c, "mimeType").map(|m| format!(" mimeType=\"{m}\"")).unwrap_or_default();
        let body = match (s(c, "text"), s(c, "blob")) {
            (Some(text), _) => text,
            (None, Some(blob)) => format!("[binary content, {} bytes]", blob.len() / 4 * 3),
            (None, None) => String::new(),
        };
        blocks.push(format!("<resource uri=\"{uri}\"{mime}>\n{}\n</resource>", body.trim_end()));
    }
    blocks.join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn templates_are_filled_in() {
        let t = template_from(&json!({"name": "Dynamic Text Resource", "uriTemplate": "demo://resource/dynamic/text/{resourceId}"})).unwrap();
        assert_eq!(t.vars, ["resourceId"]);
        assert_eq!(expand(&t.uri_template, &[("resourceId".into(), "7".into())]), "demo://resource/dynamic/text/7");
        assert_eq!(expand("file:///{path}", &[("path".into(), "a b/c".into())]), "file:///a%20b%2Fc");
        assert_eq!(expand("file:///{+path}", &[("path".into(), "a b/c".into())]), "file:///a%20b/c");
        assert_eq!(variables("x://{a}/{+b}{?c,d}"), ["a", "b", "c", "d"]);
    }

    #[test]
    fn read_contents_become_context() {
        let r = json!({"contents": [
            {"uri": "demo://a.md", "mimeType": "text/markdown", "text": "# A\n"},
            {"uri": "demo://b.bin", "mimeType": "application/octet-stream", "blob": "AAAA"}
        ]});
        assert_eq!(
            context_block(&r),
            "<resource uri=\"demo://a.md\" mimeType=\"text/markdown\">\n# A\n</resource>\n\n<resource uri=\"demo://b.bin\" mimeType=\"application/octet-stream\">\n[binary content, 3 bytes]\n</resource>"
        );
        let listed = resource_from(&json!({"uri": "demo://a.md", "name": "a.md", "mimeType": "text/markdown"})).unwrap();
        assert_eq!(listed.label, "a.md");
    }
}
