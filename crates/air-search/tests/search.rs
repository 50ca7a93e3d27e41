use air_search::{Index, tokenize};

fn terms(text: &str) -> Vec<String> {
    tokenize(text).into_iter().map(|t| t.text).collect()
}

#[test]
fn english_words_identifiers_and_stems() {
    assert_eq!(terms("Create an issue in the GitHub repository"), ["creat", "issu", "github", "git", "hub", "repository"]);
    assert_eq!(terms("mcp_github_create_issue"), ["mcp", "github", "creat", "issu"]);
    assert_eq!(terms("listPullRequests"), ["listpullrequest", "list", "pull", "request"]);
    assert_eq!(terms("HTTPServer get-current-time v2"), ["httpserver", "http", "server", "get", "current", "time", "v2", "v", "2"]);
    assert_eq!(terms("searching files, issues and classes"), ["search", "file", "issu", "class"]);
    assert_eq!(terms("status bus"), ["status", "bus"]);
    // Forms of one word meet.
    assert_eq!(terms("created creating creates"), ["creat", "creat", "creat"]);
    assert_eq!(terms("repositories repository"), ["repository", "repository"]);
}

#[test]
fn chinese_makes_pairs_and_single_characters() {
    assert_eq!(terms("天气预报"), ["天", "天气", "气", "气预", "预", "预报", "报"]);
    // Common characters alone are left out, but still make pairs.
    assert_eq!(terms("我的文件"), ["我的", "的文", "文", "文件", "件"]);
    // Mixed text: words and characters apart.
    assert_eq!(terms("查询GitHub仓库"), ["查", "查询", "询", "github", "git", "hub", "仓", "仓库", "库"]);
    assert!(terms("").is_empty() && terms("，。！ - ").is_empty());
}

/// A realistic catalog: tools of several servers, with their descriptions
/// (some servers describe their tools in Chinese).
fn catalog() -> Index {
    let tools: &[(&str, &str)] = &[
        ("github/create_issue", "Create a new issue in a GitHub repository"),
        ("github/list_issues", "List issues in a GitHub repository, filtered by state and labels"),
        ("github/create_pull_request", "Open a pull request from a branch"),
        ("github/search_code", "Search code across GitHub repositories"),
        ("github/get_file_contents", "Get the contents of a file or directory from a repository"),
        ("filesystem/read_file", "Read the complete contents of a file from the file system"),
        ("filesystem/write_file", "Create a new file or overwrite an existing file with new content"),
        ("filesystem/list_directory", "List all files and directories in a path"),
        ("filesystem/search_files", "Recursively search for files matching a pattern"),
        ("weather/get_forecast", "Get the weather forecast for a location"),
        ("weather/get_alerts", "Get weather alerts for a US state"),
        ("calendar/create_event", "Create a calendar event with a title, time and attendees"),
        ("calendar/list_events", "List upcoming events in the calendar"),
        ("slack/post_message", "Post a message to a Slack channel"),
        ("slack/list_channels", "List the channels of the workspace"),
        ("postgres/query", "Run a read-only SQL query against the database"),
        ("browser/navigate", "Navigate the browser to a URL"),
        ("browser/screenshot", "Take a screenshot of the current page"),
        ("amap/weather", "查询指定城市的天气预报和实时天气"),
        ("amap/geocode", "将详细的结构化地址转换为经纬度坐标"),
        ("amap/direction_driving", "规划驾车出行路线，返回距离和时间"),
        ("notes/create_note", "创建一条新的笔记，可以设置标题和标签"),
        ("notes/search_notes", "按关键词搜索已有的笔记内容"),
        ("translate/translate_text", "把一段文字翻译成另一种语言"),
        ("everything/echo", "Echoes back the input"),
        ("everything/add", "Adds two numbers"),
    ];
    let mut index = Index::new();
    for (id, description) in tools {
        let name = id.split('/').nth(1).unwrap_or_default();
        index.upsert(id, &[(name, 2.0), (description, 1.0)]);
    }
    index
}

fn top(index: &Index, query: &str) -> String {
    index.search(query, 3).first().map(|h| h.id.clone()).unwrap_or_default()
}

#[test]
fn english_queries_find_the_right_tool() {
    let index = catalog();
    assert_eq!(top(&index, "open a new github issue"), "github/create_issue");
    assert_eq!(top(&index, "read a file"), "filesystem/read_file");
    assert_eq!(top(&index, "what's the weather forecast in Paris"), "weather/get_forecast");
    assert_eq!(top(&index, "create a meeting event in my calendar"), "calendar/create_event");
    assert_eq!(top(&index, "send a slack message"), "slack/post_message");
    assert_eq!(top(&index, "SQL database query"), "postgres/query");
    assert_eq!(top(&index, "take a screenshot"), "browser/screenshot");
    assert_eq!(top(&index, "pull requests"), "github/create_pull_request");
    // By the tool's own name.
    assert_eq!(top(&index, "list_directory"), "filesystem/list_directory");
    assert!(index.search("quantum chromodynamics", 5).is_empty());
}

#[test]
fn chinese_queries_find_the_right_tool() {
    let index = catalog();
    assert_eq!(top(&index, "北京天气怎么样"), "amap/weather");
    assert_eq!(top(&index, "开车路线规划"), "amap/direction_driving");
    assert_eq!(top(&index, "地址转坐标"), "amap/geocode");
    assert_eq!(top(&index, "新建一条笔记"), "notes/create_note");
    assert_eq!(top(&index, "搜索笔记"), "notes/search_notes");
    assert_eq!(top(&index, "翻译"), "translate/translate_text");
    // An English word inside a Chinese question.
    assert_eq!(top(&index, "在GitHub上创建issue"), "github/create_issue");
}

#[test]
fn documents_are_added_replaced_and_removed() {
    let mut index = catalog();
    let n = index.len();
    assert_eq!(top(&index, "echo"), "everything/echo");
    index.upsert("everything/echo", &[("echo", 2.0), ("Repeats the message", 1.0)]);
    assert_eq!(index.len(), n, "replaced, not added");
    assert!(index.search("input", 5).iter().all(|h| h.id != "everything/echo"), "the old text is gone");
    assert_eq!(top(&index, "repeat my message"), "everything/echo");
    assert!(index.remove("everything/echo"));
    assert!(!index.remove("everything/echo"));
    assert_eq!(index.len(), n - 1);
    assert!(index.search("echo", 5).is_empty());
    // The freed slot is reused and nothing of the old document comes back.
    index.upsert("new/tool", &[("fresh", 1.0)]);
    assert_eq!(top(&index, "fresh"), "new/tool");
    assert!(index.search("repeat", 5).is_empty());
}

#[test]
fn ranking_is_stable_and_limited() {
    let index = catalog();
    let hits = index.search("file", 3);
    assert_eq!(hits.len(), 3);
    assert!(hits.windows(2).all(|w| w[0].score >= w[1].score));
    assert_eq!(index.search("file", 3), hits, "the same every time");
    assert!(Index::new().search("anything", 5).is_empty());
}

#[test]
fn a_word_met_again_gives_the_same_terms() {
    let once = terms("listPullRequests GitHub 博物馆");
    let twice = terms("listPullRequests GitHub 博物馆 listPullRequests GitHub 博物馆");
    assert_eq!(twice, [once.clone(), once].concat());
    let mut seen = Vec::new();
    air_search::each_term("Running runs", |t, w| seen.push((t.to_owned(), w)));
    assert_eq!(seen, terms("Running runs").into_iter().map(|t| (t, 1.0)).collect::<Vec<_>>());
}

#[test]
fn term_weights_are_each_term_summed() {
    let text = "listPullRequests GitHub 博物馆 running Runs 的博物馆 HTTPServer2 naïve café listPullRequests 東京 tokyo, TOKYO! 博物馆";
    let mut summed = std::collections::BTreeMap::<String, f32>::new();
    let mut len = 0.0f32;
    air_search::each_term(text, |t, w| {
        *summed.entry(t.to_owned()).or_insert(0.0) += w;
        len += w;
    });
    let (weights, total) = air_search::term_weights(text);
    assert_eq!(weights, summed);
    assert_eq!(total, len);
    assert!(summed.len() > 10, "{summed:?}");
    assert_eq!(air_search::term_weights(""), (Default::default(), 0.0));
}
