//! Every piece of UI text, in English and Chinese, as tables made by
//! `texts!`: a key, its English, its Chinese. [`Text`] (`text(lang)`, the
//! app's `t()`) for what the first visit can show; [`Later`]
//! (`later(lang)`, the app's `tl()`) for what only parts fetched on first
//! use show (the settings drawer, Settings → Sync, the doctor's findings
//! and bridge, MCP configuration import and export, an import's progress
//! and summary, an MCP App's frame, a server's question), whose strings
//! then travel with those parts instead of the first visit. Code of the
//! first visit must not reach `later`: the whole table would come back into
//! it.
//!
//! `{n}`-style placeholders are filled with `str::replace`; a test checks
//! that both languages of a key have the same placeholders. Messages of
//! the core crates (errors, a turn's own notes) are localised where they
//! are made, with the same [`Lang`] (`ChatError::message`,
//! `AnswerError::message`, `air_agent::text`).

pub use air_chat::Lang;

macro_rules! texts {
    ($name:ident, $en_name:ident, $zh_name:ident; $($key:ident: $en:expr, $zh:expr;)*) => {
        pub struct $name { $(pub $key: &'static str,)* }
        pub const $en_name: $name = $name { $($key: $en,)* };
        pub const $zh_name: $name = $name { $($key: $zh,)* };
        impl $name {
            /// (key, text) for every entry, in table order.
            pub fn pairs(&self) -> Vec<(&'static str, &'static str)> {
                vec![$((stringify!($key), self.$key),)*]
            }
        }
    };
}

texts! {
    Text, EN, ZH;
    app_loading: "Opening your conversations…", "正在打开你的对话…";
    update_ready: "A new version of Air Agent is ready.", "Air Agent 的新版本已就绪。";
    update_reload: "Reload", "重新加载";
    update_after_answer: "Available once the answer has finished", "回答结束后即可重新加载";
    part_missing: "This part of Air Agent could not be loaded: you are offline and it was never opened here, or a new version has been published. Reload the page (online) to get it.", "无法加载 Air Agent 的这一部分：你处于离线状态且此前从未在此打开过它，或者已经发布了新版本。请在联网时重新加载页面。";
    new_chat: "New chat", "新对话";
    new_chat_button: "+ New chat", "+ 新对话";
    hide_sidebar: "Hide conversations", "隐藏对话列表";
    toggle_sidebar: "Show or hide conversations", "显示或隐藏对话列表";
    sidebar_rail: "Quick actions", "快捷操作";
    search_placeholder: "Search conversations", "搜索对话";
    search_empty: "No conversation matches.", "没有匹配的对话。";
    search_indexing: "Indexing your messages for search…", "正在为搜索建立消息索引…";
    deleted: "Conversation deleted.", "对话已删除。";
    undo: "Undo", "撤销";
    rename: "Rename", "重命名";
    delete: "Delete this conversation", "删除此对话";
    model_badge_title: "The model that answers", "回答问题的模型";
    settings: "Settings", "设置";
    dismiss: "Dismiss", "关闭";
    creator_title: "What can I help with?", "有什么可以帮你？";
    creator_answers_from: "Answers come from", "回答来自";
    creator_at: "at", "位于";
    creator_in_browser: "in this browser", "在此浏览器中";
    suggestion_1: "Explain how a rainbow forms in two sentences.", "用两句话解释彩虹是怎么形成的。";
    suggestion_2: "Write a haiku about the sea.", "写一首关于大海的俳句。";
    suggestion_3: "Give me three ideas for a weekend project.", "给我三个周末小项目的点子。";
    suggestion_4: "What is the difference between a list and a set?", "列表和集合有什么区别？";
    composer_placeholder: "Ask anything… (Enter to send, Shift+Enter for a new line, Esc to stop)", "输入问题…（Enter 发送，Shift+Enter 换行，Esc 停止）";
    send: "Send", "发送";
    stop: "Stop", "停止";
    reasoning: "Reasoning", "推理过程";
    thought: "Thinking chain", "思考链";
    stopped: "Stopped", "已停止";
    truncated: "Cut off at the token limit", "已达到 token 上限";
    truncated_hint: "Raise “max tokens” in Settings for longer answers", "在设置中调高“最大 token 数”以获得更长的回答";
    incomplete: "Incomplete", "未完成";
    answering_elsewhere: "Answering in another tab…", "正在另一个标签页中回答…";
    copy: "Copy", "复制";
    copy_code: "Copy code", "复制代码";
    attach: "Attach", "附件";
    show_all: "Show all", "展开全部";
    profiles: "Other providers", "其他服务商";
    profile_name: "Name", "名称";
    profile_usual: "Usual provider", "默认服务商";
    known_models: "Models", "模型";
    attach_no_vision: "This model did not take images last time: pick another model, or the image may be refused.", "该模型上次没有接受图片：请换用其他模型，否则图片可能被拒绝。";
    branch_prev: "Previous version", "上一个版本";
    branch_next: "Next version", "下一个版本";
    branch_pos: "Version {n} of {m}", "第 {n} 个版本，共 {m} 个";
    show_less: "Show less", "收起";
    attach_title: "Attach images or text files (you can also paste or drop them here)", "添加图片或文本文件（也可以粘贴或拖放到这里）";
    attach_remove: "Remove {name}", "移除 {name}";
    attach_cut: "cut to {n} characters", "已截取前 {n} 个字符";
    attach_scaled: "scaled from {from}", "已从 {from} 缩小";
    attach_image_too_large: "{name} was not attached: images over 20 MB are more than models take.", "未添加 {name}：超过 20 MB 的图片模型无法接收。";
    attach_too_large: "{name} was not attached: it is over 100 MB.", "未添加 {name}：文件超过 100 MB。";
    attach_not_text: "{name} was not attached: it is neither an image (PNG, JPEG, GIF, WebP) nor a text file.", "未添加 {name}：它既不是图片（PNG、JPEG、GIF、WebP）也不是文本文件。";
    attach_failed: "{name} could not be read: {e}", "无法读取 {name}：{e}";
    image_missing: "This image is no longer stored.", "这张图片已不在存储中。";
    preview_code: "Preview", "预览";
    preview_title: "Preview of the code (sandboxed)", "代码预览（沙盒）";
    edit: "Edit", "编辑";
    cancel: "Cancel", "取消";
    save_and_send: "Save & send", "保存并发送";
    continue_answer: "Continue", "继续";
    regenerate: "Regenerate", "重新生成";
    tokens: "tokens", "tokens";
    answering: "answering…", "回答中…";
    tools_enabled: "Tools: let the model use the calculator, the clock and MCP tools", "工具：允许模型使用计算器、时钟和 MCP 工具";
    tool_calling: "How the model calls tools", "模型调用工具的方式";
    mcp_servers: "MCP servers", "MCP 服务器";
    mcp_sign_in_needed: "This server asks you to sign in.", "此服务器要求登录。";
    mcp_sign_in: "Sign in", "登录";
    mcp_signing_in: "Signing in…", "登录中…";
    mcp_sign_in_redirect: "Going to the sign-in page…", "正在前往登录页面…";
    mcp_sign_in_failed: "Could not sign in: {e}", "登录失败：{e}";
    mcp_oauth_no_cors: "{url} answers, but not to this page: the authorization server must allow this page's origin by CORS on its metadata, registration and token endpoints", "{url} 有响应，但不允许本页面访问：授权服务器须在其元数据、注册和令牌端点上通过 CORS 允许本页面的来源";
    mcp_sign_in_closed: "the sign-in window was closed before it finished", "登录窗口在完成前被关闭";
    mcp_tools_count: "{n} tools", "{n} 个工具";
    mcp_synced: "Re-synced: {u} updated, {a} added, {g} gone, {k} unchanged.", "已重新同步：更新 {u} 个，新增 {a} 个，消失 {g} 个，未变 {k} 个。";
    mcp_status_connecting: "Connecting…", "连接中…";
    mcp_status_reconnecting: "Reconnecting…", "重新连接中…";
    mcp_status_connected: "Connected (protocol {v})", "已连接（协议 {v}）";
    mcp_status_failed: "Not connected: {e}", "未连接：{e}";
    policy_default: "Default ({p})", "默认（{p}）";
    policy_allow: "Run without asking", "直接运行";
    policy_ask: "Ask me", "询问我";
    policy_deny: "Never run", "从不运行";
    tool_builtin: "built-in", "内置";
    tool_http: "HTTP tool", "HTTP 工具";
    http_tools: "HTTP tools", "HTTP 工具";
    http_tool_name: "Name", "名称";
    http_tool_description: "Description", "描述";
    http_tool_url: "URL ({name} stands for an argument)", "URL（{name} 代表一个参数）";
    http_tool_args_auto: "the body for POST, PUT, PATCH; else the query", "POST、PUT、PATCH 放请求体，其他放查询串";
    http_tool_args_body: "a JSON body", "JSON 请求体";
    http_tool_args_query: "the query string", "查询串";
    http_tool_bad_schema: "The arguments' schema is not JSON: {e}", "参数的 Schema 不是 JSON：{e}";
    http_tool_refused: "HTTP tool not saved: {e}", "HTTP 工具未保存：{e}";
    tool_awaiting: "Waiting for your approval", "等待你的批准";
    tool_running: "Running…", "运行中…";
    tool_done: "Done", "完成";
    tool_error: "Error", "出错";
    tool_denied: "Denied", "已拒绝";
    tool_stopped: "Stopped", "已停止";
    tool_interrupted: "Interrupted", "已中断";
    tool_cut: "The model was given the first {n} of {m} characters.", "模型只收到了前 {n} 个字符（共 {m} 个）。";
    run_again: "Run again", "重新运行";
    keys_title: "Keyboard shortcuts", "键盘快捷键";
    key_new_chat: "New chat", "新对话";
    key_search: "Search conversations", "搜索对话";
    key_stop: "Stop the answer (or close this)", "停止回答（或关闭此面板）";
    key_focus: "Type a message", "输入消息";
    key_sessions: "Previous / next conversation", "上一个 / 下一个对话";
    key_help: "Show these shortcuts", "显示快捷键";
    close: "Close", "关闭";
    assistants: "Assistants", "助手";
    assistant: "Assistant", "助手";
    assistant_none: "No assistant", "不使用助手";
    assistant_new: "New assistant", "新建助手";
    assistant_delete: "Delete", "删除";
    assistant_name: "Name", "名称";
    assistant_same: "as in Settings", "与设置相同";
    assistant_dynamic: "MCP dynamic loading for this assistant", "此助手使用 MCP 动态加载";
    assistant_code: "Runs code in this page (JavaScript, in a sandbox with no network)", "在此页面中运行代码（JavaScript，在无网络的沙箱中）";
    assistant_servers: "MCP servers it uses:", "使用的 MCP 服务器：";
    mcp_summary_status: "the summarizer's provider answered HTTP {n}", "总结模型的服务商返回 HTTP {n}";
    mcp_summary_timeout: "the summarizer did not answer in time", "总结模型未能及时回答";
    mcp_summary_unreachable: "the summarizer's provider could not be reached", "无法连接总结模型的服务商";
    mcp_summary_unreadable: "the summarizer's answer could not be read", "无法读取总结模型的回答";
    loaded_tools: "Loaded MCP tools:", "已加载的 MCP 工具：";
    loaded_none: "none yet (the model loads what it needs)", "暂无（模型会按需加载）";
    loaded_deleted: "no longer offered by {server}", "{server} 已不再提供";
    loaded_server_removed: "the server {server} was removed", "服务器 {server} 已删除";
    loaded_disabled: "switched off in Settings", "已在设置中停用";
    loaded_server_disabled: "the server {server} is switched off", "服务器 {server} 已停用";
    loaded_changed: "its parameters changed: to be loaded again", "参数已变更：需重新加载";
    loaded_renamed: "renamed on {server}: to be loaded under its new name", "已在 {server} 上改名：需按新名称重新加载";
    loaded_manual: "{server} · loaded by the model", "{server} · 由模型加载";
    loaded_auto: "{server} · loaded when the model called it", "{server} · 模型调用时自动加载";
    loaded_preload: "{server} · preloaded by the assistant", "{server} · 由助手预加载";
    assistant_preload: "Tools it loads from the first message (dynamic loading):", "从第一条消息起就加载的工具（动态加载）：";
    metrics_line: "{r} requests in {t} turn(s) · load hit rate {h} · {i} invalidations ({ir} per turn) · {e} extra rounds to load · tool context ≈{w} tokens instead of ≈{o} ({s} less; estimated)", "{t} 轮对话共 {r} 次请求 · 加载命中率 {h} · {i} 次失效（每轮 {ir}） · 为加载多出 {e} 轮 · 工具上下文约 {w} 个 token，原本约 {o} 个（少 {s}；估算）";
    metrics_measured: " · prompt tokens as the provider counted them ({m} requests): {p} instead of ≈{po}", " · 服务商计数的提示词 token（{m} 次请求）：{p}，原本约 {po}";
    metrics_overall: "Overall:", "总计：";
    metrics_none: "no requests with dynamic loading yet", "尚无使用动态加载的请求";
    tool_signed_in: "Signed in. Ask again to run it.", "已登录。再问一次即可运行。";
    app_context: "{tool} (from its app)", "{tool}（来自应用）";
    prompts: "Prompts", "提示词";
    prompts_title: "Insert a prompt of this chat's MCP servers", "插入本对话 MCP 服务器提供的提示词";
    prompts_loading: "Listing prompts…", "正在列出提示词…";
    prompts_none: "These servers offer no prompts.", "这些服务器没有提供提示词。";
    prompt_insert: "Insert", "插入";
    prompt_missing: "Fill in the required arguments.", "请填写必填参数。";
    prompt_failed: "Could not get the prompt: {e}", "无法获取提示词：{e}";
    resources: "Resources", "资源";
    resources_title: "Attach a resource of this chat's MCP servers to your next message", "把本对话 MCP 服务器的资源附加到下一条消息";
    resources_loading: "Listing resources…", "正在列出资源…";
    resources_none: "These servers offer no resources.", "这些服务器没有提供资源。";
    resource_attach: "Attach", "附加";
    resource_remove: "Remove this attachment", "移除此附件";
    resource_live: "The server announces changes: the latest version is sent", "服务器会通知变更：发送的是最新版本";
    resource_updated: "updated", "已更新";
    resource_failed: "Could not read the resource: {e}", "无法读取资源：{e}";
    mcp_toggle_label: "MCP servers in this chat:", "本对话使用的 MCP 服务器：";
    mcp_toggle_title: "{n} tools; click to switch on or off for this chat", "{n} 个工具；点击为本对话开启或关闭";
    elicit_cancel: "Cancel", "取消";
    elicit_required: "required", "必填";
    tool_ask: "Run this tool?", "运行这个工具吗？";
    tool_changed: "The server changed this tool since you approved it:", "自你批准后，服务器修改了这个工具：";
    mcp_new_tools_notice: "{s} offers {n} new tool(s); they wait for you in Settings.", "{s} 新增 {n} 个工具，在设置中接受前不会使用。";
    allow_once: "Allow once", "允许一次";
    allow_always: "Always allow", "总是允许";
    deny: "Deny", "拒绝";
    retrying: "Retrying in {s} s (attempt {n} of {max})…", "{s} 秒后重试（第 {n}/{max} 次）…";
    provider: "Provider", "服务商";
    base_url: "Base URL", "Base URL";
    api_key: "API key", "API 密钥";
    model: "Model", "模型";
    answers: "Answers", "回答";
    temperature: "Temperature", "温度";
    max_tokens: "Max tokens", "最大 token 数";
    max_tool_rounds: "Max tool rounds", "最大工具轮数";
    system_prompt: "System prompt", "系统提示词";
    theme: "Theme", "主题";
    language: "Language", "语言";
    save: "Save", "保存";
    data: "Data", "数据";
    import: "Import…", "导入…";
    event_log: "Event log", "事件日志";
    event_log_errors: "Errors", "错误";
    event_log_warnings: "Warnings and errors", "警告和错误";
    event_log_info: "Info and above", "信息及以上";
    event_log_debug: "Everything (debug)", "全部（调试）";
    sync: "Sync", "同步";
    sync_refused: "Sync set aside {n} document(s) it could not open or that none of your devices made.", "同步搁置了 {n} 个无法打开或并非你的设备写入的文档。";
    storage_usage: "Storage: {used} of {quota} used", "存储：已用 {used}，共 {quota}";
    storage_persistent: "Persistent storage granted.", "已获得持久化存储。";
    storage_not_persistent: "The browser may clear this data when space runs low.", "空间不足时浏览器可能会清除这些数据。";
    imported: "Imported {s} conversation(s) with {m} message(s).", "已导入 {s} 个对话，共 {m} 条消息。";
    import_failed: "The file could not be imported: {e}", "无法导入该文件：{e}";
    import_reading: "Reading the file…", "正在读取文件…";
    err_save_message: "Your message could not be saved: {e}", "无法保存你的消息：{e}";
    err_save_answer: "The answer could not be saved: {e}", "无法保存回答：{e}";
    err_storage_full: "Storage is full: free space by deleting or exporting old conversations.", "存储空间已满：请删除或导出旧对话以释放空间。";
    err_open_store: "{e}. Conversations will not be kept after this tab closes.", "{e}。关闭此标签页后对话将不会保留。";
    err_read_sessions: "Sessions could not be read: {e}", "无法读取会话：{e}";
    err_read_messages: "Messages could not be read: {e}", "无法读取消息：{e}";
    err_delete: "The session could not be deleted: {e}", "无法删除会话：{e}";
    err_rename: "The new title could not be saved: {e}", "无法保存新标题：{e}";
    err_settings: "Settings could not be saved: {e}", "无法保存设置：{e}";
    err_change: "The message could not be changed: {e}", "无法修改消息：{e}";
    err_replace: "The answer could not be replaced: {e}", "无法替换回答：{e}";
    load_older: "Show earlier messages", "显示更早的消息";
    load_newer: "Show later messages", "显示更晚的消息";
}

// The texts of what is shown only in parts fetched on first use (their
// strings travel with those parts, not with the first visit).
texts! {
    Later, LATER_EN, LATER_ZH;
    mcp_name: "Name", "名称";
    mcp_url: "URL (Streamable HTTP)", "URL（Streamable HTTP）";
    mcp_auth: "Authorization header (optional)", "Authorization 请求头（可选）";
    mcp_add: "Connect", "连接";
    mcp_pick: "Pick the tools to offer to the model:", "选择要提供给模型的工具：";
    mcp_save: "Add with {n} tool(s)", "添加（{n} 个工具）";
    mcp_adding: "Connecting…", "连接中…";
    mcp_added: "Added “{s}” with {n} tool(s).", "已添加“{s}”，共 {n} 个工具。";
    mcp_failed: "Could not add it: {e}", "无法添加：{e}";
    mcp_need_name_url: "Give the server a name and an http(s) URL.", "请填写服务器名称和 http(s) 地址。";
    mcp_sign_out: "Sign out", "退出登录";
    mcp_sign_out_hint: "Forget this server's tokens in this browser", "在此浏览器中忘记此服务器的令牌";
    mcp_client_id: "OAuth client ID (only if the server's sign-in gave you one)", "OAuth 客户端 ID（仅当该服务器的登录为你分配了一个时填写）";
    mcp_client_id_hint: "Leave empty to register automatically", "留空则自动注册";
    mcp_enabled: "On", "启用";
    mcp_resync: "Re-sync", "重新同步";
    mcp_headers: "Headers", "请求头";
    mcp_headers_hint: "One a line, as Name: value. Sent only to this server; Re-sync checks and saves them.", "每行一个，格式为 名称: 值。只发送给此服务器；点击重新同步后检查并保存。";
    mcp_syncing: "Connecting…", "连接中…";
    mcp_sync_failed: "Could not re-sync: {e}", "无法重新同步：{e}";
    mcp_tools_gone: " (+ {n} no longer offered)", "（另有 {n} 个已不再提供）";
    mcp_tools_off: " ({n} switched off)", "（{n} 个已停用）";
    mcp_tool_switches: "Tools: switch one off to stop offering it (its policy is kept)", "工具：停用后不再提供给模型（其权限设置保留）";
    mcp_remove: "Remove", "移除";
    mcp_none: "No MCP server yet.", "还没有 MCP 服务器。";
    mcp_trust_hints: "Run tools it marks read-only without asking", "不经询问运行它标为只读的工具";
    mcp_review: "Waiting for you:", "等待你的确认：";
    mcp_tool_new: "new", "新";
    mcp_tool_changed: "changed since you accepted it", "自你接受以来已修改";
    mcp_accept: "Accept", "接受";
    mcp_tools_review: " ({n} to review)", "（{n} 个待确认）";
    policies_title: "Before a tool runs:", "工具运行前：";
    http_tools_hint: "Tools that are one HTTP request to an API you choose. A GET or HEAD runs at once; POST, PUT, PATCH and DELETE ask first.", "每个工具是向你指定的 API 发出的一个 HTTP 请求。GET 和 HEAD 直接运行；POST、PUT、PATCH 和 DELETE 会先询问。";
    http_tools_none: "No HTTP tools yet.", "还没有 HTTP 工具。";
    http_tool_on: "On", "启用";
    http_tool_remove: "Remove", "删除";
    http_tool_add: "Add an HTTP tool", "添加 HTTP 工具";
    http_tool_method: "Method", "方法";
    http_tool_schema: "Arguments (JSON Schema)", "参数（JSON Schema）";
    http_tool_headers: "Headers", "请求头";
    http_tool_header_name: "Header", "请求头名称";
    http_tool_header_value: "Value", "值";
    http_tool_secret: "secret", "保密";
    http_tool_add_header: "Add a header", "添加请求头";
    http_tool_args_in: "Other arguments go in", "其余参数放在";
    http_tool_save: "Save tool", "保存工具";
    http_import: "Import OpenAPI", "导入 OpenAPI";
    http_import_hint: "Paste an OpenAPI 3 document (JSON), or give its URL.", "粘贴 OpenAPI 3 文档（JSON），或填写它的 URL。";
    http_import_text: "Document (JSON)", "文档（JSON）";
    http_import_url: "Document URL", "文档 URL";
    http_import_read: "Read", "读取";
    http_import_fetching: "Fetching {u}…", "正在获取 {u}…";
    http_import_failed: "The document could not be used: {e}", "无法使用该文档：{e}";
    http_import_pick: "Pick the operations to save as tools:", "选择要保存为工具的操作：";
    http_import_skipped: "Not offered:", "未提供：";
    http_import_caution: "Look before picking it: {e}", "选择前请确认：{e}";
    http_import_save: "Save picked tools", "保存所选工具";
    http_import_close: "Close", "关闭";
    mcp_summarizer: "MCP summarizer model", "MCP 总结模型";
    mcp_summarizer_none: "None (use the servers' descriptions)", "不使用（采用服务器自带的描述）";
    mcp_summary_failed: "Summary not written: {e}", "摘要未生成：{e}";
    mcp_summary_retry: "Retry", "重试";
    policy_server_default: "Default (each tool's own)", "默认（按各工具）";
    event_log_hint: "What the agent did: turns, the tools offered and called (or not, and why), MCP servers. Keys and passwords are removed before anything is kept.", "智能体做了什么：对话轮次、提供和调用的工具（或未调用及原因）、MCP 服务器。任何内容保存前都会去除密钥和密码。";
    event_log_show: "Show", "显示";
    event_log_export: "Export log", "导出日志";
    event_log_empty: "Nothing logged yet.", "尚无记录。";
    log_level_error: "error", "错误";
    log_level_warn: "warning", "警告";
    log_level_info: "info", "信息";
    log_level_debug: "debug", "调试";
    known_model_tools_find_out: "Find out", "自动判断";
    known_model_tools_native: "Native", "原生";
    known_model_tools_prompt: "In the prompt", "通过提示词";
    known_model_images_unknown: "Not known", "未知";
    known_model_images_accepted: "Accepted", "接受";
    known_model_images_refused: "Refused", "拒绝";
    testing: "Testing…", "测试中…";
    test_ok: "Connected: {n} model(s) available.", "连接成功：共有 {n} 个模型。";
    test_model_missing: " “{m}” is not among them.", "其中没有“{m}”。";
    tool_calling_auto: "Find out once per model", "按模型自动判断";
    tool_calling_native: "natively (tool_calls)", "原生（tool_calls）";
    tool_calling_prompt: "through the prompt (<tool_call> in the text)", "通过提示词（文本中的 <tool_call>）";
    profiles_hint: "Each chat can use one of these instead (the list beside the model in the top bar); an assistant can name one. A key is sent only to its own base URL.", "每个对话都可以改用其中之一（顶栏模型旁的列表），助手也可以指定。密钥只会发送到它自己的 Base URL。";
    profile_new: "Add a provider", "添加服务商";
    profile_delete: "Remove", "移除";
    known_models_hint: "What each provider's model can do: found out as it is used, or set here by hand. Tools are found out when “How the model calls tools” is “Find out once per model”; a model that refused images is warned of before an image goes to it.", "每个服务商的模型能做什么：使用时自动得知，也可以在这里手动设置。当“模型调用工具的方式”为“按模型自动判断”时，会自动判断工具调用方式；向曾拒绝图片的模型发送图片前会有提示。";
    known_model_tools: "Tools", "工具";
    known_model_images: "Images", "图片";
    known_model_forget: "Forget", "忘记";
    experimental: "Experimental", "实验性";
    dynamic_mcp: "MCP dynamic loading", "MCP 动态加载";
    dynamic_mcp_hint: "Instead of every MCP tool's full description, the model gets one line per server and two tools to load what it needs (load_mcp_server, load_mcp_tool). Loaded tools stay with the conversation. Saves context with many servers.", "模型不再收到每个 MCP 工具的完整说明，而是每个服务器一行摘要和两个按需加载的工具（load_mcp_server、load_mcp_tool）。已加载的工具随会话保存。服务器较多时可节省上下文。";
    dynamic_mcp_risk: "Risk: small models may not load tools before calling them, and each load costs an extra step.", "风险：小模型可能不会先加载再调用工具，每次加载也会多一步。";
    mcp_auto_load: "Auto-load once: a call of a tool that is not loaded loads it and runs", "自动补加载一次：调用未加载的工具时自动加载并运行";
    preset: "Preset", "预设";
    api_key_hint: "Sent only to the base URL above. Not needed for the local model.", "只会发送到上面的 Base URL。本地模型无需密钥。";
    test_button: "Test & list models", "测试并列出模型";
    default_value: "default", "默认";
    system_prompt_hint: "Variables: {{date}} {{time}} {{model}} {{locale}}", "变量：{{date}} {{time}} {{model}} {{locale}}";
    transitive: "Transitive Thinking: think first in a separate request, then answer", "Transitive Thinking：先用一次单独的请求思考，再回答";
    appearance: "Appearance", "外观";
    theme_system: "System", "跟随系统";
    theme_light: "Light", "浅色";
    theme_dark: "Dark", "深色";
    export_all: "Export all", "全部导出";
    export_one: "Export this conversation", "导出当前对话";
    export_markdown: "This conversation as Markdown", "当前对话导出为 Markdown";
    include_secrets: "Include the API key in exports", "导出时包含 API 密钥";
    preset_local: "Local model (llama.cpp)", "本地模型（llama.cpp）";
    preset_custom: "Custom (any OpenAI-compatible URL)", "自定义（任意 OpenAI 兼容地址）";
    chat_here: "Chat in this browser (download {n} MB once)", "在此浏览器中聊天（一次性下载 {n} MB）";
    chat_here_unknown: "Chat in this browser", "在此浏览器中聊天";
    use_api_key: "Use an API key", "使用 API 密钥";
    chat_here_hint: "No model server is set up yet. A small model can run right here, with no key, and keep answering offline.", "尚未设置模型服务器。小模型可以直接在这里运行，无需密钥，并可离线回答。";
    preset_browser: "In this browser (no server, no key)", "在此浏览器中运行（无需服务器和密钥）";
    browser_models_hint: "The model runs in this page, on this device: nothing is sent anywhere, and it answers offline once downloaded. It is slower than a server, and small models know less.", "模型在本页面、本设备上运行：不向任何地方发送内容，下载后可离线回答。它比服务器慢，小模型知道的也更少。";
    browser_models_title: "Models in this browser", "此浏览器中的模型";
    browser_download: "Download ({n} MB)", "下载（{n} MB）";
    browser_download_unknown: "Download", "下载";
    browser_resume: "Resume ({n} MB left)", "继续下载（剩余 {n} MB）";
    browser_use: "Use", "使用";
    browser_in_use: "In use", "使用中";
    browser_delete: "Delete", "删除";
    browser_stop: "Stop", "停止";
    browser_progress: "{got} of {total} MB", "{got} / {total} MB";
    browser_tools: "calls tools", "可调用工具";
    browser_no_tools: "tools through the prompt", "通过提示词使用工具";
    browser_by_url: "Any GGUF model by its URL", "通过 URL 添加任意 GGUF 模型";
    browser_from_file: "Or a GGUF file from this device", "或使用本设备上的 GGUF 文件";
    browser_storage: "Storage used by this app: {used} MB of {quota} MB", "本应用已用存储：{used} MB / {quota} MB";
    import_nothing_new: "Nothing new from {a}: its {n} conversation(s) are here already.", "{a} 中没有新内容：它的 {n} 个对话都已在这里。";
    doctor_probing: "Finding out why…", "正在查找原因…";
    doctor_fix: "What the server's owner must change:", "服务器所有者需要修改的设置：";
    doctor_mixed: "This page is served over https and the server over http: browsers block such requests (mixed content).", "本页面通过 https 提供，而服务器使用 http：浏览器会拦截这类请求（混合内容）。";
    doctor_private: "The server is on a private network and this page is not: the browser's private-network protection blocked the request.", "服务器位于私有网络而本页面不在：浏览器的私有网络保护拦截了请求。";
    doctor_unreachable: "Nothing answers at this address: the server is down, the address or port is wrong, the name does not resolve, or its certificate is not trusted ({d}).", "此地址没有响应：服务器未运行、地址或端口错误、域名无法解析，或其证书不受信任（{d}）。";
    doctor_origin: "The server answers, but not to this page: its CORS settings do not allow this origin.", "服务器有响应，但不响应本页面：其 CORS 设置不允许此来源。";
    doctor_preflight: "The server refuses the browser's preflight (OPTIONS) for a JSON POST: CORS is not set up for POST with Content-Type: application/json.", "服务器拒绝了浏览器对 JSON POST 的预检请求（OPTIONS）：CORS 未允许带 Content-Type: application/json 的 POST。";
    doctor_header: "The server's CORS settings do not allow the request header {h}.", "服务器的 CORS 设置不允许请求头 {h}。";
    doctor_hidden: "The server sends {h}, but its CORS settings hide it from the page (Access-Control-Expose-Headers).", "服务器发送了 {h}，但其 CORS 设置对页面隐藏了它（Access-Control-Expose-Headers）。";
    sync_hint: "Your conversations on every device, through your own CouchDB. With a passphrase (the same on every device; it cannot be recovered) the server keeps only ciphertext.", "通过你自己的 CouchDB 在所有设备上同步对话。设置口令后（各设备相同，无法找回）服务器只保存密文。";
    sync_url: "Database URL", "数据库 URL";
    sync_url_hint: "The server's address with the database's name after it (a lowercase letter first, then lowercase letters, digits or _$()+-/); a new name is created.", "服务器地址后接数据库名称（以小写字母开头，之后只能是小写字母、数字或 _$()+-/）；不存在的数据库会被创建。";
    sync_url_credentials: "The user and password written in the URL were moved to their own fields.", "URL 中的用户名和密码已移到各自的输入框。";
    sync_not_http: "The URL must begin with https:// or http://.", "URL 必须以 https:// 或 http:// 开头。";
    sync_no_database: "Add the database's name after the server's address, e.g. https://couch.example.com:5984/chats.", "请在服务器地址后加上数据库名称，例如 https://couch.example.com:5984/chats。";
    sync_bad_name: "CouchDB does not take this database name: it must begin with a lowercase letter, then only lowercase letters a-z, digits and _$()+-/.", "CouchDB 不接受此数据库名称：必须以小写字母开头，之后只能是小写字母 a-z、数字和 _$()+-/。";
    sync_user: "User", "用户名";
    sync_password: "Password", "密码";
    sync_passphrase: "Passphrase (end-to-end encryption)", "口令（端到端加密）";
    sync_passphrase_confirm: "Passphrase again (on the first device)", "再次输入口令（第一台设备）";
    sync_confirm_hint: "The first device creates the encrypted database: type the passphrase twice there, since a typo would lock every other device out. Other devices may leave it empty.", "第一台设备会创建加密数据库：请在那里输入两次口令，因为输错会让其他所有设备都无法打开。其他设备可以留空。";
    sync_passphrase_show: "Show the passphrase", "显示口令";
    sync_mismatch: "The two passphrases differ: type them again.", "两次输入的口令不一致：请重新输入。";
    sync_unconfirmed: "This sync database is new: type the passphrase again in the second field, then Save and sync. Nothing was written yet.", "该同步数据库是新的：请在第二个输入框中再次输入口令，然后点击“保存并同步”。尚未写入任何内容。";
    sync_prefs_hint: "With a passphrase, settings, assistants, servers and tools sync too; of two edits made apart, the later holds.", "设置口令后，设置、助手、服务器和工具也会同步；分别修改时以较晚的为准。";
    sync_keys: "Also sync API keys (encrypted)", "同时同步 API 密钥（加密）";
    sync_headers: "Also sync MCP headers (encrypted)", "同时同步 MCP 请求头（加密）";
    sync_save: "Save and sync", "保存并同步";
    sync_conflicts: "Kept from edits made apart: {n}", "分别修改时保留的版本：{n}";
    sync_kept: "{when}, on {device}, had:", "{when}，{device}上的版本：";
    sync_kept_undated: "Before {device} joined sync, it had:", "{device}加入同步之前的版本：";
    sync_this_device: "this device", "此设备";
    sync_other_device: "another device", "另一台设备";
    sync_dismiss: "Dismiss", "知道了";
    sync_subject_session: "Conversation", "对话";
    sync_subject_settings: "Settings", "设置";
    sync_subject_server: "MCP server", "MCP 服务器";
    sync_subject_assistant: "Assistant", "助手";
    sync_subject_http: "HTTP tool", "HTTP 工具";
    sync_now: "Sync now", "立即同步";
    sync_pause: "Pause", "暂停";
    sync_resume: "Resume", "继续";
    sync_off: "Sync is off.", "同步已关闭。";
    sync_running: "Syncing… {up} sent, {down} received", "同步中… 已发送 {up}，已接收 {down}";
    sync_idle: "Up to date ({when}): {up} sent{sent}, {down} received{received}.", "已是最新（{when}）：已发送 {up}{sent}，已接收 {down}{received}。";
    sync_what: " ({list})", "（{list}）";
    sync_what_sep: ", ", "、";
    sync_n_session: "{n} conversation|{n} conversations", "{n} 个对话";
    sync_n_message: "{n} message|{n} messages", "{n} 条消息";
    sync_n_file: "{n} file|{n} files", "{n} 个文件";
    sync_n_settings: "the settings", "设置";
    sync_n_server: "{n} MCP server|{n} MCP servers", "{n} 个 MCP 服务器";
    sync_n_assistant: "{n} assistant|{n} assistants", "{n} 个助手";
    sync_n_http: "{n} HTTP tool|{n} HTTP tools", "{n} 个 HTTP 工具";
    sync_n_other: "{n} other|{n} others", "其他 {n} 个";
    sync_to_go: ", about {n} to go", "，约剩 {n} 个";
    sync_paused: "Paused.", "已暂停。";
    sync_elsewhere: "Another tab of this browser is syncing.", "此浏览器的另一个标签页正在同步。";
    sync_retry: " Trying again in {s} s.", " {s} 秒后重试。";
    sync_unauthorized: "The server refused the user name or password: enter them again.", "服务器拒绝了用户名或密码：请重新输入。";
    sync_wrong_passphrase: "This passphrase does not open this sync database; nothing was changed.", "此口令无法打开该同步数据库，未做任何更改。";
    sync_passphrase_needed: "This sync database is encrypted: enter its passphrase.", "该同步数据库已加密：请输入口令。";
    sync_not_encrypted: "This sync database is not encrypted, but a passphrase was given: nothing was sent. If it was encrypted before, its configuration was replaced on the server; to sync encrypted, use a new, empty database.", "该同步数据库未加密，但填写了口令：未发送任何内容。如果它之前是加密的，说明服务器上的配置已被替换；要加密同步，请使用一个新的空数据库。";
    sync_plain_warning: "Without a passphrase there is no integrity: anyone who can write to the database (its server, a leaked password, another user) can change or delete your records, and tool calls synced from it always ask before they run again.", "不设置口令就没有完整性保护：任何能写入该数据库的人（服务器、泄露的密码、其他用户）都能修改或删除你的记录，从中同步来的工具调用再次运行前总会先询问。";
    sync_set_aside: "{n} document(s) set aside since this page opened: they could not be opened, or none of your devices made them (someone who can write to the database may have tried to change or delete records). Nothing of them was applied.", "自打开本页以来搁置了 {n} 个文档：无法打开，或并非你的设备写入（能写入该数据库的人可能试图修改或删除记录）。它们的内容均未被采用。";
    sync_unreachable: "The server cannot be reached ({e}). If it is up, allow this page in its CORS settings (see the README).", "无法连接服务器（{e}）。如果服务器正常，请在其 CORS 设置中允许此页面（见 README）。";
    sync_failed: "Sync failed: {e}", "同步失败：{e}";
    sync_refused_fix: "Set this on the server (then sync goes on by itself):", "请在服务器上这样设置（之后同步会自动继续）：";
    imported_from: "Imported {s} conversation(s) with {m} message(s) from {a}.", "已从 {a} 导入 {s} 个对话，共 {m} 条消息。";
    import_hidden: "{n} hidden message(s) (system prompts, hidden context) left out.", "已略去 {n} 条隐藏消息（系统提示、隐藏上下文）。";
    import_as_text: "{n} part(s) kept as text (files not in the export, tool calls).", "{n} 处内容以文字保留（导出中没有的文件、工具调用）。";
    import_skipped: "{n} conversation(s) could not be read", "{n} 个对话无法读取";
    import_keys: "API keys and settings in the file were not imported.", "文件中的 API 密钥和设置未被导入。";
    skip_other_app: "file {n} is not from {a}: import it on its own", "文件 {n} 不是来自 {a}：请单独导入";
    skip_not_export: "a file that is not a {a} export", "有文件不是 {a} 的导出";
    skip_no_sessions: "{w}: no sessions", "{w}：没有会话";
    skip_not_list: "{w}: not a list", "{w}：不是列表";
    skip_not_records: "{w}: {n} entries that are not records", "{w}：{n} 个条目不是记录";
    skip_no_id: "\"{t}\": no id ({w})", "“{t}”：没有 id（{w}）";
    skip_no_messages: "\"{t}\": no messages ({w})", "“{t}”：没有消息（{w}）";
    skip_not_object: "conversation {n}: not an object", "第 {n} 个对话不是对象";
    import_left_out: "Not imported: {f}.", "未导入：{f}。";
    import_left_out_more: "{f}; and {n} more", "{f}；以及另外 {n} 项";
    importing: "Importing… {d} of {n} conversations", "正在导入…{d}/{n} 个对话";
    mcp_import: "Import or export a configuration", "导入或导出配置";
    mcp_import_hint: "Paste the JSON of Claude Desktop, Cursor, Windsurf or Claude Code (mcpServers), VS Code (servers) or Zed (context_servers), or choose the file. Nothing is saved until you connect a server and save its tools.", "粘贴 Claude Desktop、Cursor、Windsurf 或 Claude Code（mcpServers）、VS Code（servers）或 Zed（context_servers）的 JSON，或选择文件。在你连接服务器并保存其工具之前，不会保存任何内容。";
    mcp_import_read: "Read", "读取";
    mcp_import_file: "Choose a file…", "选择文件…";
    mcp_import_off: "off in the file", "文件中已停用";
    mcp_import_ask: "Needed first (never sent as written):", "需先填写（不会按原样发送）：";
    mcp_import_local: "A local (stdio) server: a page cannot start programs. Run this line on this computer: it serves the server on 127.0.0.1, for this page only. Then Connect.", "本地（stdio）服务器：网页无法启动程序。请在这台电脑上运行下面这行命令：它会在 127.0.0.1 上提供该服务器，且只对本页面开放。然后点击连接。";
    mcp_import_shell: "Shell", "终端";
    mcp_import_posix: "macOS, Linux (sh, bash, zsh)", "macOS、Linux（sh、bash、zsh）";
    mcp_import_powershell: "Windows (PowerShell)", "Windows（PowerShell）";
    mcp_import_bridge: "Bridge", "桥接程序";
    mcp_import_port: "Port", "端口";
    mcp_import_everywhere: "supergateway listens on every network interface of this computer, not only 127.0.0.1: anyone on your network can reach the server while it runs.", "supergateway 会监听这台电脑的所有网络接口，而不只是 127.0.0.1：它运行期间，你所在网络中的任何人都能访问该服务器。";
    mcp_ask_env: "The value of the environment variable {n}", "环境变量 {n} 的值";
    mcp_ask_input: "The value of the input \"{n}\"", "输入项“{n}”的值";
    mcp_ask_file: "The contents of the file {n}", "文件 {n} 的内容";
    mcp_ask_home: "Your home folder", "你的主目录";
    mcp_ask_workspace: "The workspace folder", "工作区文件夹";
    mcp_ask_other: "The value of {n}", "{n} 的值";
    mcp_import_copy: "Copy the line", "复制命令";
    mcp_import_unusable: "Cannot be used from a page: {e}", "无法在网页中使用：{e}";
    mcp_not_a_header: "line {n} is not a header (Name: value)", "第 {n} 行不是请求头（名称: 值）";
    unusable_not_object: "not an object", "不是对象";
    unusable_url_not_text: "its url is not text", "其 url 不是文本";
    unusable_not_http: "{url} is not an http(s) address; a page reaches servers over HTTP only", "{url} 不是 http(s) 地址；网页只能通过 HTTP 访问服务器";
    unusable_headers: "its headers are not an object", "其 headers 不是对象";
    unusable_header_text: "its header {k} is not text", "其请求头 {k} 不是文本";
    unusable_env: "its environment is not an object", "其 env 不是对象";
    unusable_env_text: "its environment variable {k} is not text", "其环境变量 {k} 不是文本";
    unusable_no_path: "its command has no path", "其 command 没有 path";
    unusable_command_text: "its command is not text", "其 command 不是文本";
    unusable_stdio_command: "a stdio server without a command", "stdio 服务器缺少 command";
    unusable_nothing: "neither a url nor a command", "既没有 url 也没有 command";
    unusable_empty_command: "its command is empty", "其 command 为空";
    unusable_argument: "an argument is not text", "有参数不是文本";
    unusable_args: "its args are not a list", "其 args 不是列表";
    unusable_variable: "its environment variable {k} is not a variable name", "其环境变量名 {k} 不是合法的变量名";
    unusable_placeholder: "it has a placeholder with no name (${})", "它含有没有名字的占位符（${}）";
    unusable_powershell_quote: "the word {w} holds a double quote (\"), which Windows PowerShell passes to the program unescaped, so the program would get other words than the line shows. Use the line for sh (WSL, Git Bash) or change the configuration", "词 {w} 含有双引号（\"），Windows PowerShell 会不加转义地传给程序，程序收到的词会与命令行显示的不同。请使用 sh 的命令行（WSL、Git Bash）或修改配置";
    unusable_powershell_empty: "the word {w} is empty, and Windows PowerShell drops an empty word instead of passing it. Use the line for sh (WSL, Git Bash) or change the configuration", "词 {w} 为空，Windows PowerShell 会丢弃空词而不传递。请使用 sh 的命令行（WSL、Git Bash）或修改配置";
    unusable_powershell_backslash: "the word {w} ends with a backslash and holds a blank: Windows PowerShell quotes it so that the backslash escapes the closing quote. Use the line for sh (WSL, Git Bash) or change the configuration", "词 {w} 以反斜杠结尾且含空白：Windows PowerShell 加引号后，反斜杠会转义结尾的引号。请使用 sh 的命令行（WSL、Git Bash）或修改配置";
    unusable_cmd: "the word {w} holds {c}, which cmd.exe takes as {r}: Windows starts {p} through cmd.exe, which would run something else than the line shows. Use the line for sh (WSL, Git Bash) or change the configuration", "词 {w} 含有 {c}，cmd.exe 会把它当作{r}：Windows 通过 cmd.exe 启动 {p}，实际运行的会与命令行显示的不同。请使用 sh 的命令行（WSL、Git Bash）或修改配置";
    cmd_separator: "a command separator", "命令分隔符";
    cmd_redirection: "a redirection", "重定向";
    cmd_variable: "a variable's mark", "变量标记";
    cmd_escape: "its escape character", "转义字符";
    cmd_line_end: "the end of the command", "命令结束";
    cmd_line_break: "a line break", "换行符";
    mcp_import_headers: "Also sent: {h}", "同时发送：{h}";
    mcp_export: "Export as mcpServers", "导出为 mcpServers";
    mcp_export_secrets: "Include secret headers", "包含机密请求头";
    mcp_export_left_out: "{n} secret headers left out.", "已省略 {n} 个机密请求头。";
    doctor_bridge: "This server runs on this computer without CORS for web pages. Servers like it (Playwright MCP, say) are usually run over stdio: start it through a bridge instead (Import, with its command), or run this line to put a bridge in front of it, then connect to {u}.", "此服务器运行在这台电脑上，但没有为网页开启 CORS。这类服务器（例如 Playwright MCP）通常以 stdio 方式运行：请改为通过桥接程序启动它（在“导入”中填入其命令），或运行下面这行命令在它前面加一个桥接程序，然后连接 {u}。";
    app_open: "Show the app", "显示应用";
    view_loading: "Loading the app…", "正在加载应用…";
    app_failed: "The app cannot be shown: {e}", "无法显示应用：{e}";
    app_close: "Close the app", "关闭应用";
    app_link_ask: "The app wants to open a link:", "应用想要打开链接：";
    app_permissions_ask: "The app of {server} asks to use: {features}.", "{server} 的应用请求使用：{features}。";
    app_permissions_allow: "Allow", "允许";
    app_permissions_deny: "Don't allow", "不允许";
    app_link_open: "Open link", "打开链接";
    app_exit_fullscreen: "Exit full screen", "退出全屏";
    app_message_held: "The app's message was not put in the message box (it has your text, or the app just sent one).", "应用的消息没有放进输入框（框里已有你的文字，或应用刚刚发过一条）。";
    app_call_ask: "The app wants to call {tool} with:", "应用想要调用 {tool}，参数：";
    app_call_allow: "Allow", "允许";
    app_call_deny: "Deny", "拒绝";
    app_refused: "Ignored in the app's declared domains: {d}", "已忽略应用声明的域名：{d}";
    tool_question: "The tool asks:", "工具在询问：";
    elicit_submit: "Submit", "提交";
    elicit_decline: "Decline", "拒绝";
    elicit_url: "It asks you to open a page on {domain}.", "它请你打开 {domain} 上的一个页面。";
    elicit_open: "Open {domain}", "打开 {domain}";
    elicit_refused: "The page is not offered: {why}.", "不提供该页面：{why}。";
    field_required: "{f} is required", "{f} 为必填项";
    field_length: "{f}: between {min} and {max} characters", "{f}：须为 {min} 到 {max} 个字符";
    field_length_min: "{f}: at least {min} characters", "{f}：至少 {min} 个字符";
    field_format: "{f}: not a valid {x}", "{f}：不是有效的{x}";
    field_email: "e-mail address", "电子邮件地址";
    field_uri: "address (with ://)", "网址（含 ://）";
    field_date: "date (YYYY-MM-DD)", "日期（YYYY-MM-DD）";
    field_date_time: "date and time (YYYY-MM-DDThh:mm)", "日期和时间（YYYY-MM-DDThh:mm）";
    field_number: "{f}: not a number", "{f}：不是数字";
    field_whole: "{f}: a whole number", "{f}：须为整数";
    field_range: "{f}: out of range", "{f}：超出范围";
    field_choice: "{f}: not one of the choices", "{f}：不是可选项之一";
}

/// The later texts in `lang`.
pub fn later(lang: Lang) -> &'static Later {
    match lang {
        Lang::En => &LATER_EN,
        Lang::Zh => &LATER_ZH,
    }
}

/// The texts in `lang`.
pub fn text(lang: Lang) -> &'static Text {
    match lang {
        Lang::En => &EN,
        Lang::Zh => &ZH,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_agree_between_languages() {
        // The same `{x}` placeholders in both languages of a key, so a
        // replace never leaves one unfilled. A `one|many` key names its
        // placeholder once per form, so each is counted once.
        let holes = |s: &str| {
            let mut v: Vec<String> = s.match_indices('{').filter_map(|(i, _)| s[i..].find('}').map(|j| s[i..i + j + 1].to_owned())).collect();
            v.sort();
            v.dedup();
            v
        };
        for (en, zh) in EN.pairs().iter().zip(ZH.pairs().iter()).chain(LATER_EN.pairs().iter().zip(LATER_ZH.pairs().iter())) {
            assert_eq!(holes(en.1), holes(zh.1), "key {}", en.0);
            assert!(!zh.1.is_empty(), "key {} has no Chinese", zh.0);
        }
    }
}
