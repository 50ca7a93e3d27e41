use super::*;

#[test]
fn gfm_tables_task_lists_strikethrough() {
    let html = render("| a | b |\n|:--|--:|\n| 1 | 2 |\n\n- [x] done\n- [ ] todo\n\n~~gone~~");
    assert!(html.contains("<table><thead><tr><th style=\"text-align:left\">a</th><th style=\"text-align:right\">b</th></tr></thead><tbody><tr><td style=\"text-align:left\">1</td>"), "{html}");
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

/// Payloads collected from common XSS cheat sheets, as a model might echo them.
pub const XSS: &[&str] = &[
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "<svg onload=alert(1)>",
    "<iframe src=\"javascript:alert(1)\"></iframe>",
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[click](java\tscript:alert(1))",
    "[click](&#106;avascript:alert(1))",
    "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[click](vbscript:msgbox(1))",
    "![x](javascript:alert(1))",
    "![x\" onerror=\"alert(1)](https://example.com/a.png)",
    "[x](https://example.com/\" onmouseover=\"alert(1))",
    "<a href=\"javascript:alert(1)\">x</a>",
    "<details open ontoggle=alert(1)>",
    "<math><mi xlink:href=\"javascript:alert(1)\">x</mi></math>",
    "<style>*{display:none}</style>",
    "<object data=\"javascript:alert(1)\"></object>",
    "<base href=\"javascript:alert(1)//\">",
    "<form action=\"javascript:alert(1)\"><button>x</button></form>",
    "<div style=\"background:url(javascript:alert(1))\">",
    "<!-- --><script>alert(1)</script>",
    "`<script>alert(1)</script>`",
    "```html\n<script>alert(1)</script>\n```",
    "<<script>script>alert(1)<</script>/script>",
    "[a](<javascript:alert(1)>)",
    "[ref]\n\n[ref]: javascript:alert(1)",
    "<input autofocus onfocus=alert(1)>",
    "<video><source onerror=alert(1)>",
    "<body onload=alert(1)>",
];

#[test]
fn xss_corpus_never_produces_live_markup() {
    for payload in XSS {
        let html = render(payload);
        let lower = html.to_ascii_lowercase();
        for bad in ["<script", "<img", "<svg", "<iframe", "<object", "<style", "<base", "<form", "<math", "<details", "<video", "<body", "<div style", "<a href=\"javascript", "<a href=\"data", "<a href=\"vbscript"] {
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
