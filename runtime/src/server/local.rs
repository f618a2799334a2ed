//! Reading a resource and getting a prompt in-process, for the `read` and `prompt` commands:
//! through the same pipeline as a served request, without a client (no notifications, no
//! cancellation).

use rmcp::ErrorData;
use rmcp::model::{GetPromptRequestParams, GetPromptResult, JsonObject, ReadResourceResult};
use tokio_util::sync::CancellationToken;

use super::Server;
use super::call::{CallSetup, Way};
use crate::Error;

impl Server {
    /// Reads `uri` as a client would: `Err` is the protocol error a client would get.
    pub(crate) async fn read_local(
        &self,
        uri: &str,
    ) -> Result<Result<ReadResourceResult, ErrorData>, Error> {
        let server = self.clone().handler_unchecked()?;
        let read = server.pipeline.read(
            uri.to_owned(),
            CancellationToken::new(),
            CallSetup::default(),
            Way::Local,
        );
        Ok(read.await)
    }

    /// Gets prompt `name` with `arguments` as a client would.
    pub(crate) async fn prompt_local(
        &self,
        name: &str,
        arguments: JsonObject,
    ) -> Result<Result<GetPromptResult, ErrorData>, Error> {
        let server = self.clone().handler_unchecked()?;
        let mut params = GetPromptRequestParams::new(name);
        params.arguments = Some(arguments);
        let prompt = server.pipeline.prompt(
            params,
            CancellationToken::new(),
            CallSetup::default(),
            Way::Local,
        );
        Ok(prompt.await)
    }
}
