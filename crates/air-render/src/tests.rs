use super::*;

#[test]
fn gfm_tables_task_lists_strikethrough() {
    let html = render("| a | b |\n|:--|--:|\n| 1 | 2 |\n\n- [x] done\n- [ ] todo\n\n~~gone~~");
    assert!(html.contains("<table><thead><tr><th class=\"align-left\">a</th><th class=\"align-right\">b</th></tr></thead><tbody><tr><td class=\"align-left\">1</td>"), "{html}");
    // Each box is labelled by its item's text.
    assert!(html.contains("<li><label class=\"task\"><input type=\"checkbox\" disabled checked> done</label></li>"), "{html}");
    assert!(html.contains("<li><label class=\"task\"><input type=\"checkbox\" disabled> todo</label></li>"), "{html}");
    assert!(html.contains("<del>gone</del>"), "{html}");
    // In a loose list the label ends with the paragraph, before a nested list.
    let loose = render(
        "- [ ] **one** two

  more
- [x] three
  - nested",
    );
    assert!(loose.contains("<p><label class=\"task\"><input type=\"checkbox\" disabled> <strong>one</strong> two</label></p>"), "{loose}");
    assert!(loose.contains("<p><label class=\"task\"><input type=\"checkbox\" disabled checked> three</label></p><ul>"), "{loose}");
    let tight = render("- [x] three\n  - nested");
    assert!(tight.contains("<li><label class=\"task\"><input type=\"checkbox\" disabled checked> three</label><ul><li>nested"), "{tight}");
}

#[test]
fn code_blocks_are_highlighted_with_a_copy_button() {
    let html = render("```rust\nfn main() { let s = \"<b>\"; } // hi\n```\n");
    assert!(html.contains(&format!("aria-labelledby=\"{COPY_LABEL_ID}\"")), "{html}");
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
        for bad in [
            "<script",
            "<img",
            "<svg",
            "<iframe",
            "<object",
            "<style",
            "<base",
            "<form",
            "<math",
            "<details",
            "<video",
            "<body",
            "<animate",
            "<div style",
            "<a href=\"javascript",
            "<a href=\"data",
            "<a href=\"vbscript",
        ] {
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
    assert_eq!(html, "<p><a href=\"https://example.com/a?b=1&amp;c=&quot;2&quot;\" target=\"_blank\" rel=\"noopener noreferrer\">docs</a></p>");
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
fn pieces_pushed_render_as_the_growing_text_does() {
    let text = "Intro.\n\n- a\n\n- b\n\n```\nx\n\ny\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n中文段落。\n\nEnd **bold**.";
    let (mut by_text, mut by_piece) = (StreamRender::new(), StreamRender::new());
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let mut last = (String::new(), String::new());
    let mut from = 0;
    for (i, (end, _)) in text.char_indices().skip(1).chain([(text.len(), ' ')]).enumerate() {
        // Pieces of one to four characters.
        if i % 4 != 3 && end != text.len() {
            continue;
        }
        let u = by_text.update(&text[..end]);
        a.extend(u.blocks);
        let v = by_piece.push(&text[from..end]);
        b.extend(v.blocks);
        from = end;
        last = (u.tail, v.tail);
        assert_eq!(by_text.committed(), by_piece.committed());
        assert_eq!(by_piece.len(), end);
    }
    assert_eq!(a, b);
    assert_eq!(last.0, last.1);
    assert_eq!(b.len(), 4, "{b:?}");
    assert_eq!(format!("{}{}", b.concat(), last.1), render(text));
    // What the blocks cover is known to the saved text's cutter.
    let (at, fingerprint) = by_piece.committed();
    let rest: Vec<String> = blocks_after(text, at, fingerprint).expect("the same text").map(render).collect();
    assert_eq!(format!("{}{}", b.concat(), rest.concat()), render(text));
}

#[test]
fn replaced_text_restarts() {
    let mut r = StreamRender::new();
    r.update("para one\n\npara two\n\n");
    let u = r.update("new");
    assert_eq!(u.tail, "<p>new</p>");
}

#[test]
fn a_long_text_renders_block_by_block_as_it_does_whole() {
    let text = "# Title\n\nFirst paragraph\ncontinues.\n\n```rust\nfn a() {}\n\nfn b() {}\n```\n\n\
                - loose one\n\n- loose two\n\n  still two\n\n1. first\n\n2. second\n\n\
                | a | b |\n|---|:-:|\n| 1 | 2 |\n\n> quoted\n\n    indented code\n\nLast **bold** words";
    let parts: Vec<&str> = blocks(text).collect();
    assert_eq!(parts.concat(), text, "blocks cover the text, in order");
    assert!(parts.len() >= 6, "{parts:?}");
    let joined: String = parts.iter().map(|b| render(b)).collect();
    assert_eq!(joined, render(text));
    // A loose list is not cut between its items.
    assert!(parts.iter().any(|b| b.contains("loose one") && b.contains("still two")), "{parts:?}");
    assert!(parts.iter().any(|b| b.contains("1. first") && b.contains("2. second")), "{parts:?}");
}

#[test]
fn a_text_with_link_definitions_is_one_block() {
    let text = "See [the docs][d].\n\nMore.\n\n[d]: https://example.com/docs\n";
    assert_eq!(blocks(text).collect::<Vec<_>>(), [text]);
    assert!(render(text).contains("href=\"https://example.com/docs\""));
    assert_eq!(blocks("").count(), 0);
    assert_eq!(blocks("one\n\n\n\ntwo").collect::<Vec<_>>(), ["one\n\n\n\n", "two"]);
}

/// The blocks handed out while `text` arrives a byte at a time.
fn stream_byte_by_byte(text: &str) -> (Vec<String>, StreamRender) {
    let mut r = StreamRender::new();
    let mut streamed = Vec::new();
    for end in 1..=text.len() {
        streamed.extend(r.update(&text[..end]).blocks);
    }
    (streamed, r)
}

#[test]
fn streamed_blocks_are_the_blocks_of_the_whole() {
    let text = "Intro.\n\n- a\n\n- b\n\nOutro one.\n\n```\nx\n\ny\n```\n\nEnd.";
    let (streamed, _) = stream_byte_by_byte(text);
    let whole: Vec<String> = blocks(text).map(render).collect();
    // What streamed is the whole's blocks but the last two (the tail, and
    // the block its last, unfinished line would have cut off).
    assert_eq!(streamed[..], whole[..whole.len() - 2]);
    assert_eq!(whole.len(), 5, "{whole:?}");
}

#[test]
fn an_answer_that_arrives_at_once_is_still_cut_into_blocks() {
    let para = "A sentence that goes on for a while. ".repeat(4);
    let text: String = (0..500).map(|i| format!("{para}{i}\n\n")).collect();
    let u = StreamRender::new().update(&text);
    assert_eq!(u.blocks.len(), 499, "one block per paragraph, the last still the tail");
    assert!(u.blocks.iter().all(|b| b.len() < 400));
    assert_eq!(format!("{}{}", u.blocks.concat(), u.tail), render(&text));
}

#[test]
fn a_saved_answer_needs_only_the_blocks_after_those_that_streamed() {
    let text = "Intro.\n\n- a\n\n- b\n\nOutro one.\n\n```\nx\n\ny\n```\n\nEnd one.\n\nEnd two.";
    let (streamed, r) = stream_byte_by_byte(text);
    let (from, fingerprint) = r.committed();
    let rest: Vec<String> = blocks_after(text, from, fingerprint).expect("same text").map(render).collect();
    let whole: Vec<String> = blocks(text).map(render).collect();
    assert_eq!([streamed, rest].concat(), whole);
    // Another text, or one with link definitions: not reused.
    assert!(blocks_after("Other.\n\n- a\n\n- b\n\nOutro one.\n\nmore", from, fingerprint).is_none());
    assert!(blocks_after(&format!("{text}\n\n[d]: https://example.com"), from, fingerprint).is_none());
    assert!(blocks_after("short", from, fingerprint).is_none());
}

#[test]
fn formulas_are_marked_with_their_source_in_every_delimiter() {
    let html = render("Euler: $e^{i\\pi} + 1 = 0$ and \\(a^2\\).\n\n$$\\int_0^1 x\\,dx$$\n\n\\[x = \\frac{a}{b}\n\\cdot c\\]");
    assert!(html.contains("<span class=\"math\" data-math=\"inline\">e^{i\\pi} + 1 = 0</span>"), "{html}");
    assert!(html.contains("<span class=\"math\" data-math=\"inline\">a^2</span>"), "{html}");
    assert!(html.contains("<span class=\"math display\" data-math=\"display\">\\int_0^1 x\\,dx</span>"), "{html}");
    assert!(html.contains("data-math=\"display\">x = \\frac{a}{b}\n\\cdot c</span>"), "{html}");
}

#[test]
fn math_delimiters_in_code_and_lone_ones_stay_text() {
    let html = render("`\\(x\\)` and `$y$`\n\n```\n\\[z\\]\n```\n\nA lone \\( stays, \\$5 too, and $ 1 $ is no formula.");
    assert!(!html.contains("data-math"), "{html}");
    assert!(html.contains("<code>\\(x\\)</code>"), "{html}");
    assert!(html.contains("\\[z\\]"), "{html}");
    assert!(html.contains("A lone ( stays, $5 too"), "{html}");
    // Indented code, and a fence that a line with an info string does not close.
    let code = render("Text.\n\n    \\(a\\)\n    \\(b\\)\n\n```\n\\(c\\)\n```rust\n\\(d\\)\n```\n\nAfter \\(e\\).");
    assert_eq!(code.matches("data-math").count(), 1, "{code}");
    assert!(code.contains("\\(a\\)\n\\(b\\)") && code.contains("\\(c\\)\n```rust\n\\(d\\)"), "{code}");
    // A price range is no formula.
    assert!(!render("It costs $5-$10.").contains("data-math"));
    assert!(!render("From $3 to $4.").contains("data-math"));
}

#[test]
fn a_formula_becomes_mathml_and_a_bad_one_stays_source() {
    let inline = mathml("\\frac{a}{b} + x^2", false).expect("parses");
    assert!(inline.starts_with("<math"), "{inline}");
    assert!(inline.contains("<mfrac>") && inline.contains("<msup>"), "{inline}");
    let block = mathml("\\sum_{i=1}^n i", true).expect("parses");
    assert!(block.contains("display=\"block\""), "{block}");
    assert_eq!(mathml("\\frac{1", false), None);
    assert_eq!(mathml("\\frac{1}", false), None);
    assert_eq!(mathml("x^", false), None);
    // What the renderer writes for common formulas is kept: spaces in text,
    // sized delimiters, row spacing, environments.
    assert!(mathml("x \\text{ if } y", false).is_some_and(|m| m.contains("&nbsp;if&nbsp;")));
    assert!(mathml("\\big( x \\big)", false).is_some_and(|m| m.contains("minsize=\"1.2em\"")));
    assert!(mathml("\\begin{cases} 1 & x \\\\ 2 & y \\end{cases}", false).is_some_and(|m| m.contains("menv-cases")));
    assert!(mathml("\\begin{pmatrix} 1 & 2 \\end{pmatrix}", true).is_some());
    assert_eq!(mathml("\\nosuchcommand{x}", false), None);
    assert_eq!(mathml("  ", false), None);
}

#[test]
fn markup_inside_a_formula_stays_text() {
    // Text is escaped by the renderer: kept, as text.
    for tex in ["\\text{<img src=x onerror=alert(1)>}", "\\text{</math><script>alert(1)</script>}"] {
        let m = mathml(tex, false).expect("plain text");
        assert!(!m.contains("<img") && !m.contains("<script") && m.contains("&lt;"), "{tex}: {m}");
    }
    // \\operatorname's argument is not: any markup in it refuses the formula
    // (shown as source), including the page's own classes and styles.
    for tex in [
        "\\operatorname{<b>x</b>}",
        "\\operatorname{</mi></math><img src=x onerror=alert(1)>}",
        "\\operatorname{</mi><mi style=\"position:fixed\">x}",
        "\\operatorname{</mi><mi class=\"drawer-backdrop\" style=\"background-color: rgb(0 0 0)\">x}",
        "\\operatorname{</mi><mi onclick=\"alert(1)\">x}",
        "\\operatorname{&lt;x&copy;}",
    ] {
        assert_eq!(mathml(tex, false), None, "{tex}");
    }
    // Relations and ampersands are text, as they should be.
    assert_eq!(mathml("a < b \\& c", false).as_deref(), Some("<math display=\"inline\"><mi>a</mi><mo>&lt;</mo><mi>b</mi><mi>&amp;</mi><mi>c</mi></math>"));
    // And the marked source is escaped.
    let html = render("$\\text{<script>alert(1)</script>}$");
    assert!(html.contains("&lt;script&gt;") && !html.contains("<script>"), "{html}");
}

#[test]
fn colours_are_mathml_attributes_not_styles() {
    // The page's policy (`style-src 'self'`) ignores `style` attributes:
    // colours are written as `mathcolor` and `mathbackground`.
    for (tex, expected) in [
        ("\\color{red}{x}", "<math display=\"inline\"><mrow mathcolor=\"#ff0000\"><mi>x</mi></mrow></math>"),
        ("\\color{red} x", "<math display=\"inline\"><mi mathcolor=\"#ff0000\">x</mi></math>"),
        ("\\textcolor{blue}{y}", "<math display=\"inline\"><mrow mathcolor=\"#0000ff\"><mrow><mi>y</mi></mrow></mrow></math>"),
        ("\\color{#1A2b3C}{x}", "<math display=\"inline\"><mrow mathcolor=\"#1a2b3c\"><mi>x</mi></mrow></math>"),
        ("\\colorbox{yellow}{z}", "<math display=\"inline\"><mrow mathbackground=\"#ffff00\"><mtext>z</mtext></mrow></math>"),
        // A border has no MathML attribute: it stays a style (which the page ignores).
        ("\\fcolorbox{red}{yellow}{z}", "<math display=\"inline\"><mrow mathbackground=\"#ffff00\" style=\"border: 0.06em solid rgb(255 0 0)\"><mtext>z</mtext></mrow></math>"),
    ] {
        assert_eq!(mathml(tex, false).as_deref(), Some(expected), "{tex}");
    }
    let m = mathml("{\\color{red} a} + {\\color{cornflowerblue} b}", true).expect("parses");
    assert!(m.contains("<mrow mathcolor=\"#ff0000\"><mi>a</mi></mrow>") && m.contains("mathcolor=\"#6495ed\""), "{m}");
    assert!(!m.contains("style"), "{m}");
    // What the renderer refuses is no formula.
    for tex in ["\\color{red;background:url(x)}{x}", "\\color{expression(alert(1))}{x}", "\\color{\"><script>alert(1)</script>}{x}"] {
        assert_eq!(mathml(tex, false), None, "{tex}");
    }
    // Colours put in by markup (through \\operatorname) are checked the
    // same way: anything but a plain colour refuses the formula.
    for value in [
        "color: red;background:url(x)",
        "color: expression(alert(1))",
        "color: url(x)",
        "color: rgb(255 0 0 / 0)",
        "color: rgb(1,2,3)",
        "color: #12345",
        "color: red; color: blue",
        "background-color: &quot;&gt;&lt;script&gt;",
    ] {
        let tex = format!("\\operatorname{{</mi><mi style=\"{value}\">x}}");
        let m = mathml(&tex, false);
        assert!(m.as_deref().is_none_or(|m| !m.contains("url(") && !m.contains("expression") && !m.contains("script")), "{tex}: {m:?}");
        assert_eq!(m, None, "{tex}");
    }
    // A plain colour put in that way is no worse than one the renderer writes.
    let tex = "\\operatorname{</mi><mi style=\"color: Red\">x}";
    assert_eq!(mathml(tex, false).as_deref(), Some("<math display=\"inline\"><mi></mi><mi mathcolor=\"red\">x</mi></math>"));
    // A `mathcolor` attribute cannot be put in.
    assert_eq!(mathml("\\operatorname{</mi><mi mathcolor=\"red\">x}", false), None);
    // Other styles the renderer writes stay as they were (a negative space).
    assert!(mathml("a \\! b", false).is_some_and(|m| m.contains("style=\"margin-left: ")), "negative space");
}

#[test]
fn html_and_svg_code_blocks_can_be_previewed() {
    for lang in ["html", "SVG", "htm"] {
        let html = render(&format!("```{lang}\n<b>x</b>\n```"));
        assert!(html.contains(&format!("data-preview-code=\"\" aria-labelledby=\"{PREVIEW_LABEL_ID}\"")), "{html}");
    }
    assert!(!render("```js\nx\n```").contains("data-preview-code"));
    assert!(!render("```\n<b>x</b>\n```").contains("data-preview-code"));
}

#[test]
fn escaping_keeps_every_other_character_and_replaces_the_five() {
    let mut out = String::from("kept ");
    escape("<a href=\"x\">Tom & Jerry's 猫</a> ünïcödé >", &mut out);
    assert_eq!(out, "kept &lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s 猫&lt;/a&gt; ünïcödé &gt;");
    let mut plain = String::new();
    escape("", &mut plain);
    escape("no specials, ça va", &mut plain);
    assert_eq!(plain, "no specials, ça va");
}
