use super::*;

#[test]
fn gfm_tables_task_lists_strikethrough() {
    let html = render("| a | b |\n|:--|--:|\n| 1 | 2 |\n\n- [x] done\n- [ ] todo\n\n~~gone~~");
    assert!(html.contains("<table><thead><tr><th class=\"align-left\">a</th><th class=\"align-right\">b</th></tr></thead><tbody><tr><td class=\"align-left\">1</td>"), "{html}");
    assert!(html.contains("<input type=\"checkbox\" disabled checked> done"), "{html}");
    assert!(html.contains("<input type=\"checkbox\" disabled> todo"), "{html}");
    assert!(html.contains("<del>gone</del>"), "{html}");
}

#[test]
fn code_blocks_are_highlighted_with_a_copy_button() {
    let html = render("```rust\nfn main() { let s = \"<b>\"; } // hi\n```\n");
    assert!(html.contains("class=\"language-rust\""), "{html}");
    assert!(html.contains("<span class=\"tok-keyword\">fn</span>"), "{html}");
    assert!(html.contains("<span class=\"tok-string\">&quot;&lt;b&gt;&quot;</span>"), "{html}");
    assert!(html.contains("<span class=\"tok-comment\">// hi</span>"), "{html}");
    assert!(html.contains("data-copy-code"), "{html}");
}

#[test]
fn hostile_fence_language_is_neutralised() {
    let html = render("```\"><script>alert(1)</script>\nx\n```");
    assert!(!html.contains("<script"), "{html}");
    assert!(html.contains("class=\"language-scriptalert1script\">"), "{html}");
}

/// The shared XSS corpus (also used by the browser test), one payload per
/// entry, entries separated by a line `====`.
fn xss_corpus() -> Vec<&'static str> {
    include_str!("../../../tests/fixtures/xss.txt").split("\n====\n").map(str::trim_end).collect()
}

#[test]
fn xss_corpus_never_produces_live_markup() {
    let corpus = xss_corpus();
    assert!(corpus.len() >= 30, "corpus loaded");
    for payload in corpus {
        let html = render(payload);
        let lower = html.to_ascii_lowercase();
        for bad in ["<script", "<img", "<svg", "<iframe", "<object", "<style", "<base", "<form", "<math", "<details", "<video", "<body", "<animate", "<div style", "<a href=\"javascript", "<a href=\"data", "<a href=\"vbscript"] {
            assert!(!lower.contains(bad), "{payload:?} rendered as {html}");
        }
        // Event handler attributes can only appear inside escaped text.
        for (i, _) in lower.match_indices(" on") {
            let before = &lower[..i];
            let last_lt = before.rfind('<');
            let last_gt = before.rfind('>');
            assert!(last_gt >= last_lt, "attribute-like `on` inside a tag in {html}");
        }
        assert!(!lower.contains("href=\"java") && !lower.contains("href=\"&#"), "{payload:?} → {html}");
        assert!(!lower.contains(" style=\""), "inline styles are blocked by the CSP: {html}");
    }
}

#[test]
fn safe_links_open_in_a_new_tab_without_referrer() {
    let html = render("[docs](https://example.com/a?b=1&c=\"2\")");
    assert_eq!(
        html,
        "<p><a href=\"https://example.com/a?b=1&amp;c=&quot;2&quot;\" target=\"_blank\" rel=\"noopener noreferrer\">docs</a></p>"
    );
    let unsafe_link = render("[docs](javascript:alert(1))");
    assert_eq!(unsafe_link, "<p>docs</p>");
}

#[test]
fn streaming_blocks_plus_tail_match_the_whole_render() {
    let text = "# Title\n\nFirst paragraph\ncontinues.\n\n```rust\nfn a() {}\n\nfn b() {}\n```\n\n- one\n- two\n\n    indented code\n\nLast **bold** words";
    let mut r = StreamRender::new();
    let mut blocks = Vec::new();
    let mut tail = String::new();
    // Feed it a few bytes at a time, as a stream would.
    let mut end = 0;
    while end < text.len() {
        end = (end + 3).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        let u = r.update(&text[..end]);
        blocks.extend(u.blocks);
        tail = u.tail;
    }
    let joined = format!("{}{}", blocks.concat(), tail);
    assert_eq!(joined, render(text));
    assert!(blocks.len() >= 3, "finished blocks were handed out: {blocks:?}");
    // The fenced block with a blank line inside stayed in one piece.
    assert!(blocks.iter().any(|b| b.contains("a()") && b.contains("b()")), "{blocks:?}");
}

#[test]
fn streaming_tail_stays_small() {
    let mut r = StreamRender::new();
    let para = "A sentence that goes on for a while. ".repeat(4);
    let mut text = String::new();
    let mut longest_tail = 0;
    for _ in 0..200 {
        text.push_str(&para);
        text.push_str("\n\n");
        longest_tail = longest_tail.max(r.update(&text).tail.len());
    }
    assert!(longest_tail < 400, "the tail is re-rendered per chunk, so it must stay short: {longest_tail}");
}

#[test]
fn replaced_text_restarts() {
    let mut r = StreamRender::new();
    r.update("para one\n\npara two\n\n");
    let u = r.update("new");
    assert_eq!(u.tail, "<p>new</p>");
}
