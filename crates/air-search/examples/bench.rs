//! Searching a catalog of 300 tools (30 servers of 10): builds the index,
//! runs a set of English and Chinese queries many times, and prints the
//! median time per query and the build time, as a Markdown table.
//!
//!     cargo run --release -p air-search --example bench

use std::time::Instant;

use air_search::Index;

const VERBS: &[&str] = &["create", "list", "get", "update", "delete", "search", "read", "write", "send", "query"];
const NOUNS: &[&str] = &[
    "issue",
    "file",
    "event",
    "message",
    "record",
    "user",
    "project",
    "ticket",
    "note",
    "page",
    "invoice",
    "order",
    "image",
    "document",
    "task",
    "branch",
    "channel",
    "table",
    "report",
    "contact",
    "forecast",
    "route",
    "calendar",
    "repository",
    "comment",
    "label",
    "folder",
    "dataset",
    "model",
    "secret",
];
const ZH: &[&str] = &["创建", "查询", "删除", "更新", "搜索", "读取", "写入", "发送", "列出", "获取"];
const ZH_NOUNS: &[&str] = &["文件", "笔记", "天气", "订单", "日程", "消息", "用户", "路线", "图片", "报告"];

fn main() {
    let mut docs = Vec::new();
    for s in 0..30 {
        for t in 0..10 {
            let (verb, noun) = (VERBS[t], NOUNS[(s + t * 7) % NOUNS.len()]);
            let name = format!("server{s}/{verb}_{noun}");
            let description = if s % 3 == 0 {
                format!("{}{}，支持分页和过滤条件，返回结构化结果", ZH[t], ZH_NOUNS[(s + t) % ZH_NOUNS.len()])
            } else {
                format!("{verb} a {noun} in the {} workspace, with paging and filters; returns structured results", NOUNS[s % NOUNS.len()])
            };
            docs.push((name, description));
        }
    }
    let started = Instant::now();
    let mut index = Index::new();
    for (id, description) in &docs {
        let name = id.split('/').nth(1).unwrap_or_default();
        index.upsert(id, &[(name, 2.0), (description, 1.0)]);
    }
    let build_us = started.elapsed().as_secs_f64() * 1e6;
    let queries =
        ["open a new ticket", "read the file contents", "send a message to the channel", "weather forecast for tomorrow", "delete an old branch", "查询天气", "创建一条笔记", "发送消息给用户"];
    let mut times = Vec::new();
    let mut found = 0;
    for _ in 0..200 {
        for q in queries {
            let t = Instant::now();
            let hits = index.search(q, 10);
            times.push(t.elapsed().as_secs_f64() * 1e6);
            found += hits.len();
        }
    }
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    let p95 = times[times.len() * 95 / 100];
    println!("| what | build | query median | query p95 |");
    println!("|---|---|---|---|");
    println!("| 300-tool catalog (30 servers, a third described in Chinese), {} English and Chinese queries, top 10 ({} hits) | {build_us:.0} µs | {median:.1} µs | {p95:.1} µs |", times.len(), found);
}
