//! A quantized llama (GGUF) with greedy decoding: load the model's bytes,
//! process a pre-tokenized prompt, then one token per step. `Core` is the
//! plain Rust engine (also used natively by `examples/native.rs`); on
//! wasm32 `Engine` exports it to JavaScript.

use candle_core::quantized::gguf_file;
use candle_core::{Device, Tensor};
use candle_transformers::models::quantized_llama::ModelWeights;
use std::io::Cursor;

/// A loaded model and the state of the current answer.
pub struct Core {
    model: ModelWeights,
    /// Tokens in the KV cache (the prompt and the tokens decoded so far).
    pos: usize,
    /// The last token chosen, fed to the next step.
    last: u32,
}

impl Core {
    /// Reads a GGUF file held in memory.
    pub fn load(bytes: &[u8]) -> candle_core::Result<Core> {
        let mut reader = Cursor::new(bytes);
        let content = gguf_file::Content::read(&mut reader)?;
        let model = ModelWeights::from_gguf(content, &mut reader, &Device::Cpu)?;
        Ok(Core {
            model,
            pos: 0,
            last: 0,
        })
    }

    /// Starts over with `ids` (the KV cache is reset) and returns the first
    /// token of the answer.
    pub fn prompt(&mut self, ids: &[u32]) -> candle_core::Result<u32> {
        self.pos = 0;
        let input = Tensor::new(ids, &Device::Cpu)?.unsqueeze(0)?;
        self.step(&input, ids.len())
    }

    /// Decodes one more token.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> candle_core::Result<u32> {
        let input = Tensor::new(&[self.last], &Device::Cpu)?.unsqueeze(0)?;
        self.step(&input, 1)
    }

    fn step(&mut self, input: &Tensor, len: usize) -> candle_core::Result<u32> {
        let logits = self.model.forward(input, self.pos)?;
        self.pos += len;
        self.last = logits.squeeze(0)?.argmax(0)?.to_scalar::<u32>()?;
        Ok(self.last)
    }
}

#[cfg(target_arch = "wasm32")]
mod web {
    use super::Core;
    use wasm_bindgen::prelude::*;

    fn js(e: candle_core::Error) -> JsError {
        JsError::new(&e.to_string())
    }

    /// The engine as JavaScript sees it.
    #[wasm_bindgen]
    pub struct Engine {
        core: Core,
    }

    #[wasm_bindgen]
    impl Engine {
        /// Loads a GGUF model from its bytes.
        pub fn load(bytes: &[u8]) -> Result<Engine, JsError> {
            Ok(Engine {
                core: Core::load(bytes).map_err(js)?,
            })
        }

        /// Processes the prompt's token ids; returns the first token.
        pub fn prompt(&mut self, ids: &[u32]) -> Result<u32, JsError> {
            self.core.prompt(ids).map_err(js)
        }

        /// One decoding step; returns the next token.
        #[allow(clippy::should_implement_trait)]
        pub fn next(&mut self) -> Result<u32, JsError> {
            self.core.next().map_err(js)
        }
    }
}
