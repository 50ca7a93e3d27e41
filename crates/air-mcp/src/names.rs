//! Registry names for MCP tools: `mcp_{server}_{tool}`.

/// Providers accept `^[a-zA-Z0-9_-]{1,64}$` as a function name.
pub const MAX_NAME: usize = 64;

/// `s` with everything outside `[A-Za-z0-9_-]` turned into `_`.
fn clean(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect()
}

/// `mcp_{server}_{tool}`, sanitised and at most [`MAX_NAME`] characters;
/// `taken` says whether a name is already used, and a clash gets a
/// numbered suffix. Names are one-to-one with (server, tool): wherever
/// the plain form could stand for another pair (cleaning changed a
/// character, so `a.b` and `a_b` would meet; the server's name has a `_`,
/// so `files`+`backup_delete` and `files_backup`+`delete` would meet), a
/// short hash of the pair follows. A long name keeps its end (where tool
/// names differ) behind a short hash of the whole.
pub fn tool_name(server: &str, tool: &str, taken: impl Fn(&str) -> bool) -> String {
    let (s, t) = (clean(server), clean(tool));
    let plain = !server.is_empty() && s == server && t == tool && !server.contains('_');
    let base = format!("mcp_{s}_{t}");
    let base = if plain && base.len() <= MAX_NAME {
        base
    } else if plain {
        let hash = format!("{:08x}", fnv1a(&base) as u32);
        let keep = MAX_NAME - hash.len() - 1;
        let tail = &base[base.len() - (keep - 4)..];
        format!("mcp_{hash}_{tail}")
    } else {
        let hash = format!("{:08x}", fnv1a(&format!("{server}\u{0}{tool}")) as u32);
        if base.len() + 1 + hash.len() <= MAX_NAME {
            format!("{base}_{hash}")
        } else {
            let keep = MAX_NAME - hash.len() - 5;
            format!("mcp_{hash}_{}", &base[base.len() - keep..])
        }
    };
    if !taken(&base) {
        return base;
    }
    (2..)
        .map(|n| {
            let suffix = format!("_{n}");
            let cut = base.len().min(MAX_NAME - suffix.len());
            format!("{}{suffix}", &base[..cut])
        })
        .find(|name| !taken(name))
        .unwrap_or(base)
}

fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf29ce484222325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100000001b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_clean_short_and_unique() {
        assert_eq!(tool_name("everything", "echo", |_| false), "mcp_everything_echo");
        assert!(tool_name("My Server!", "get-sum", |_| false).starts_with("mcp_My_Server__get-sum_"));
        assert_eq!(tool_name("s", "t", |n| n == "mcp_s_t"), "mcp_s_t_2");
        assert_eq!(tool_name("s", "t", |n| n == "mcp_s_t" || n == "mcp_s_t_2"), "mcp_s_t_3");
        let long_a = tool_name("a-very-long-server-name-for-testing", "a_tool_with_an_extremely_long_name_number_one", |_| false);
        let long_b = tool_name("a-very-long-server-name-for-testing", "a_tool_with_an_extremely_long_name_number_two", |_| false);
        assert!(long_a.len() <= MAX_NAME && long_b.len() <= MAX_NAME, "{long_a} {long_b}");
        assert_ne!(long_a, long_b);
        assert!(long_a.ends_with("number_one"));
        assert!(long_a.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'));
        let clash = tool_name("x", &"t".repeat(70), |n| n.len() == MAX_NAME && !n.ends_with("_2"));
        assert!(clash.len() <= MAX_NAME && clash.ends_with("_2"), "{clash}");
    }

    #[test]
    fn names_never_stand_for_two_tools() {
        let none = |_: &str| false;
        let pairs = [
            (("files", "backup_delete"), ("files_backup", "delete")),
            (("my server", "t"), ("my.server", "t")),
            (("a.b", "t"), ("a_b", "t")),
            (("s", "a.b"), ("s", "a_b")),
            (("pаypal", "t"), ("paypal", "t")),
            (("s", "dеlete"), ("s", "delete")),
            (("x", &"t".repeat(70)), ("x.", &"t".repeat(70))),
        ];
        for ((s1, t1), (s2, t2)) in pairs {
            let (a, b) = (tool_name(s1, t1, none), tool_name(s2, t2, none));
            assert_ne!(a, b, "{s1}/{t1} and {s2}/{t2}");
            for n in [&a, &b] {
                assert!(n.len() <= MAX_NAME && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'), "{n}");
            }
            // The same whatever else is registered (no order dependence).
            assert_eq!(a, tool_name(s1, t1, |n| n == b));
        }
        // Plain names stay as they were.
        assert_eq!(tool_name("everything", "get-sum", none), "mcp_everything_get-sum");
    }
}
