//! Connecting the test client: as a client with a user (elicitation, sampling, roots), or
//! without one (an unattended agent).

use std::collections::HashMap;
use std::sync::atomic::AtomicI64;

use rmcp::model::{
    ClientCapabilities, ClientNotification, ClientRequest, Implementation, InitializeRequest,
    InitializeRequestParams, InitializedNotification, ProtocolVersion, ServerResult,
};

use super::Client;
use super::driver::{Driver, Reply};
use super::requests::{self, Answerer};
use crate::{Error, Server};

impl Client {
    /// Serves `server` in-process and connects to it: `initialize` at 2025-11-25, then the
    /// tools are listed once.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let server = toolsmith::Server::with_registry(toolsmith::Registry::new());
    /// let client = toolsmith::testing::Client::connect(server).await;
    /// assert!(client.is_ok());
    /// # }
    /// ```
    ///
    /// Unlike serving, connecting does not need every tool's [`State<T>`](crate::State): a
    /// test of one tool need not register the state of another. Calling a tool whose state
    /// `server` lacks is an error that names the type and says to register it:
    ///
    /// ```
    /// use toolsmith::{Registry, Server, State, tool};
    ///
    /// struct Database {
    ///     rows: u64,
    /// }
    ///
    /// /// Count the rows.
    /// #[tool(read_only)]
    /// fn count_rows(db: State<Database>) -> u64 {
    ///     db.rows
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let tools = Registry::from_module(module_path!()).unwrap();
    /// let client = toolsmith::testing::Client::connect(Server::with_registry(tools.clone())).await.unwrap();
    /// let err = client.call("count_rows", serde_json::json!({})).await.unwrap_err();
    /// assert!(err.message().contains("State<"), "{err}");
    /// assert!(err.message().contains(".state(value)"), "{err}");
    ///
    /// let server = Server::with_registry(tools).state(Database { rows: 3 });
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// assert_eq!(client.call("count_rows", serde_json::json!({})).await.unwrap().text(), "3");
    /// # }
    /// ```
    pub async fn connect(server: Server) -> Result<Client, Error> {
        Self::connect_answering(server, requests::declining()).await
    }

    /// Like [`connect`](Self::connect), answering the requests the server sends during a
    /// call (an elicitation, sampling, roots) with `answerer` instead of [`decline`](super::decline). The
    /// client declares elicitation (form), sampling and roots.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// use std::sync::Arc;
    /// let answerer: toolsmith::testing::Answerer = Arc::new(toolsmith::testing::decline);
    /// let server = toolsmith::Server::with_registry(toolsmith::Registry::new());
    /// let client = toolsmith::testing::Client::connect_answering(server, answerer).await;
    /// assert!(client.is_ok());
    /// # }
    /// ```
    pub async fn connect_answering(server: Server, answerer: Answerer) -> Result<Client, Error> {
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = Some(Default::default());
        capabilities.sampling = Some(Default::default());
        capabilities.roots = Some(Default::default());
        Self::connect_declaring(server, answerer, capabilities).await
    }

    /// Like [`connect`](Self::connect), as a client without a user: it declares no
    /// elicitation, sampling or roots (an agent that runs unattended, a CI job). A
    /// confirmation is then decided by the server's approvers, or refused.
    ///
    /// ```
    /// use toolsmith::approve::{Approval, Decision};
    /// use toolsmith::testing::Client;
    /// use toolsmith::{Registry, Server, server::Confirm, tool};
    ///
    /// /// Empty the bin.
    /// #[tool(destructive, closed_world)]
    /// fn empty_bin() -> String {
    ///     "emptied".into()
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let server = Server::with_registry(Registry::from_module(module_path!()).unwrap())
    ///     .confirm(Confirm::Destructive);
    /// let agent = Client::connect_unattended(server.clone()).await.unwrap();
    /// let err = agent.call("empty_bin", serde_json::json!({})).await.unwrap_err();
    /// assert!(err.message().contains("cannot ask"), "{err}");
    ///
    /// let night_shift = server.approver_instead_of_client(|_: &Approval| Decision::approve());
    /// let agent = Client::connect_unattended(night_shift).await.unwrap();
    /// assert_eq!(agent.call("empty_bin", serde_json::json!({})).await.unwrap().text(), "emptied");
    /// # }
    /// ```
    pub async fn connect_unattended(server: Server) -> Result<Client, Error> {
        let capabilities = ClientCapabilities::default();
        Self::connect_declaring(server, requests::declining(), capabilities).await
    }

    async fn connect_declaring(
        server: Server,
        answerer: Answerer,
        capabilities: ClientCapabilities,
    ) -> Result<Client, Error> {
        let (client_end, server_end) = tokio::io::duplex(1 << 20);
        let (read, write) = tokio::io::split(server_end);
        // Checked here, so that a registry that cannot be built is an error of `connect`. A
        // tool whose `State<T>` this server lacks is no reason to refuse: the test may be
        // about other tools, and a call of that tool is answered with an error naming it.
        let registry = server.served()?;
        let scope_names = server.scope_names.clone();
        let server = tokio::spawn(async move {
            if let Err(err) = server.serve_on_unchecked(read, write).await {
                tracing::warn!(%err, "the test server stopped");
            }
        });
        let mut client = Client {
            driver: Driver::start(client_end, answerer),
            turn: tokio::sync::Mutex::new(()),
            next_id: AtomicI64::new(0),
            wrapped: HashMap::new(),
            scope_names,
            registry,
            tasks: std::sync::Mutex::default(),
            instructions: None,
            server,
        };
        let params = InitializeRequestParams::new(
            capabilities,
            Implementation::new("toolsmith-testing", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::V_2025_11_25);
        let init = ClientRequest::InitializeRequest(InitializeRequest::new(params));
        match client.request(init, None).await {
            Reply::Result(result) if matches!(*result, ServerResult::InitializeResult(_)) => {
                if let ServerResult::InitializeResult(init) = *result {
                    client.instructions = init.instructions;
                }
            }
            other => {
                return Err(Error::Protocol {
                    request: "initialize",
                    answer: format!("{other:?}"),
                });
            }
        }
        client
            .driver
            .notify(ClientNotification::InitializedNotification(
                InitializedNotification::default(),
            ));
        let tools = client.list_tools().await?;
        client.wrapped = tools
            .iter()
            .map(|tool| {
                let wrapped = tool.output_schema.as_ref().is_some_and(|schema| {
                    schema.contains_key(crate::tool::schema::WRAP_RESULT_KEY)
                });
                (tool.name.to_string(), wrapped)
            })
            .collect();
        Ok(client)
    }
}
