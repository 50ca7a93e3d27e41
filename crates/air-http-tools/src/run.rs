//! An HTTP tool as an `air_tools::Tool`: the request built, sent over the
//! app's `HttpClient` (raced against Stop through the call's `Abort`), the
//! answer read.

use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use air_http::{Abort, Body, HttpClient, HttpError};
use air_tools::{CallContext, Tool, ToolDef, ToolOutput};
use serde_json::Value;

use crate::request::build_request;
use crate::response::read_response;
use crate::tool::HttpTool;
use crate::url;

/// One saved HTTP tool, ready for the registry.
pub struct HttpCall<C> {
    tool: HttpTool,
    def: ToolDef,
    http: Rc<C>,
}

impl<C: HttpClient> HttpCall<C> {
    pub fn new(tool: HttpTool, http: Rc<C>) -> Self {
        let def = tool.def();
        Self { tool, def, http }
    }

    pub fn tool(&self) -> &HttpTool {
        &self.tool
    }
}

impl<C: HttpClient> Tool for HttpCall<C> {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn call<'a>(&'a self, args: Value, ctx: CallContext<'a>) -> Pin<Box<dyn Future<Output = ToolOutput> + 'a>> {
        Box::pin(async move { run(&*self.http, &self.tool, &args, ctx.abort).await })
    }
}

/// One call: a request that cannot be built, or an answer that never came,
/// is an error the model reads; any answer is [`read_response`]'s.
pub async fn run<C: HttpClient>(http: &C, tool: &HttpTool, args: &Value, abort: &Abort) -> ToolOutput {
    let built = match build_request(tool, args) {
        Ok(b) => b,
        Err(e) => return ToolOutput::error(format!("No request was sent: {e}.")),
    };
    let host = url::split(&tool.url).map(|p| p.host.to_owned()).unwrap_or_default();
    let response = match http.send(built.into_request(), abort).await {
        Ok(r) => r,
        Err(e) => return ToolOutput::error(failure(&e, &host)),
    };
    let status = response.status;
    let content_type = response.header("content-type").map(str::to_owned);
    match response.body.text().await {
        Ok(body) => read_response(status, content_type.as_deref(), &body),
        Err(e) => ToolOutput::error(failure(&e, &host)),
    }
}

fn failure(e: &HttpError, host: &str) -> String {
    match e {
        HttpError::Aborted => "Stopped by the user before the API answered.".to_owned(),
        HttpError::Network(d) => format!("Could not reach {host} ({d}). The API may be down, or it does not allow requests from a web page (CORS)."),
        HttpError::Other(d) => format!("The request to {host} failed: {d}"),
    }
}

#[cfg(test)]
#[path = "run_tests.rs"]
mod tests;
