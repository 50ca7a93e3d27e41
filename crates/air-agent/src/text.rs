//! The few sentences a turn writes itself, in the user's language.

use air_chat::Lang;

pub fn round_limit(lang: Lang, rounds: u32) -> String {
    match lang {
        Lang::En => format!("Stopped after {rounds} tool rounds (the limit in Settings). The last calls were not run. Send a message to go on."),
        Lang::Zh => format!("已达到 {rounds} 轮工具调用的上限（可在设置中修改），最后的调用未执行。发送消息即可继续。"),
    }
}
