//! `toolsmith-gateway`: upstream servers (the notes example and the test fixtures over stdio,
//! toolsmith servers in process over Streamable HTTP) mounted into a toolsmith server under a
//! prefix, governed by the gateway, followed while they serve.

mod apps;
mod cache;
mod confirm;
mod https;
mod identity_exchange;
mod identity_pool;
mod identity_refused;
mod identity_setup;
mod identity_signin;
mod listing_adversarial;
mod mount;
mod openapi;
mod openapi_adversarial;
mod passthrough;
mod pin_adversarial;
mod reshape;
mod results;
mod review;
mod survive;
mod validate;
mod views;

use toolsmith::Server;
use toolsmith_gateway::Upstream;

/// `server` served over Streamable HTTP on a free loopback port, answering: its address.
/// Stateless: the tests send requests that stand alone.
async fn served_over_http(server: Server) -> String {
    let addr = format!("127.0.0.1:{}", toolsmith_tests::free_port());
    tokio::spawn(server.sessions(false).serve_http(addr.clone()));
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(&addr).await.is_ok() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    addr
}

/// A client of a gateway in front of `server`, served over HTTP and mounted as `name`, and
/// the upstream mounted (its link closes when it is dropped).
async fn through_the_gateway(
    name: &str,
    server: Server,
) -> (toolsmith::testing::Client, toolsmith_gateway::Mounted) {
    let upstream = served_over_http(server).await;
    let mounted = Upstream::http(name, format!("http://{upstream}/mcp"))
        .connect()
        .await
        .unwrap();
    let client =
        toolsmith::testing::Client::connect(Server::with_registry(mounted.registry().unwrap()))
            .await
            .unwrap();
    (client, mounted)
}

fn notes() -> Upstream {
    let binary = toolsmith_tests::example_binary("notes");
    Upstream::stdio("notes", binary.display().to_string()).env("TOOLSMITH_LOG", "off")
}
