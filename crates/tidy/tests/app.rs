//! Rules of `app/`: its flows go to the workspace core, which the binding
//! runs. Tasks are spawned and page-wide state is kept only there (and in
//! `air-web`); views use of the app only the binding, the text and other
//! views. No behaviour is decided by comparing text the user reads.

use tidy::root;

/// The binding: the one place that may spawn and keep page-wide state.
const BINDING: &str = "app/src/binding/";

fn app_files() -> Vec<(String, String)> {
    let root = root();
    tidy::rust_files(&root.join("app/src"))
        .into_iter()
        .map(|path| (path.strip_prefix(&root).map(|p| p.display().to_string()).unwrap_or_default(), std::fs::read_to_string(&path).unwrap_or_default()))
        .collect()
}

fn code_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter(|l| !l.trim_start().starts_with("//"))
}

#[test]
fn tasks_and_page_wide_state_only_in_the_binding() {
    let mut problems = Vec::new();
    for (rel, text) in app_files().into_iter().filter(|(f, _)| !f.starts_with(BINDING)) {
        let spawns = code_lines(&text).map(|l| l.matches("spawn_local(").count()).sum::<usize>();
        let locals = code_lines(&text).filter(|l| l.contains("thread_local!")).count();
        if spawns + locals > 0 {
            problems.push(format!("{rel}: {spawns} spawn_local, {locals} thread_local!: go through the workspace core and the binding"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn no_behaviour_decided_by_comparing_text_the_user_reads() {
    let mut hits = Vec::new();
    for (rel, text) in app_files() {
        for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim_start().starts_with("//")) {
            let compares = line.contains("== ") || line.contains("!= ");
            let worded = line.contains("t()")
                && compares
                && (line.contains("== Some(state.t()") || line.contains("!= Some(state.t()") || line.contains(".t().") && (line.contains(" == ") || line.contains(" != ")) && !line.contains("lang"));
            if worded {
                hits.push(format!("{rel}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(hits.is_empty(), "decided by comparing localized text (compare data instead):\n{}", hits.join("\n"));
}

/// What a view may use of the app: the binding (its signals, its
/// environment and its lazily fetched parts), the text and other views.
#[test]
fn views_use_only_the_binding_text_parts_and_views() {
    let allowed = ["binding", "i18n", "view"];
    let mut problems = Vec::new();
    for (rel, text) in app_files().into_iter().filter(|(f, _)| f.starts_with("app/src/view/")) {
        let mut used: Vec<String> = text
            .match_indices("crate::")
            .map(|(i, _)| text[i + "crate::".len()..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>())
            .filter(|m| !allowed.contains(&m.as_str()))
            .collect();
        used.sort();
        used.dedup();
        if !used.is_empty() {
            problems.push(format!("{rel} uses {used:?}: a view goes through the binding"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
