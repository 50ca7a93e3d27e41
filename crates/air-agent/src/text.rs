//! The few sentences a turn writes itself, in the user's language.

use air_chat::Lang;

pub fn body_ended(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "the stream ended without a finish marker",
        Lang::Zh => "数据流在没有结束标记的情况下中断",
    }
}

pub fn local_model_down(lang: Lang) -> &'static str {
    match lang {
        Lang::En => {
            " The built-in local model does not seem to be running: start it with `./dev serve`, or open Settings and choose a provider."
        }
        Lang::Zh => " 内置本地模型似乎没有运行：请用 `./dev serve` 启动，或在设置中选择其他服务商。",
    }
}

pub fn round_limit(lang: Lang, rounds: u32) -> String {
    match lang {
        Lang::En => format!(
            "Stopped after {rounds} tool rounds (the limit in Settings). The last calls were not run. Send a message to go on."
        ),
        Lang::Zh => format!("已达到 {rounds} 轮工具调用的上限（可在设置中修改），最后的调用未执行。发送消息即可继续。"),
    }
}
