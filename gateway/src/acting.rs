//! How an upstream is told to act as each user: the builder methods that give it its way of
//! getting a caller's token ([`ActsAs`]: a token exchange, tokens the gateway mints, the
//! user's own sign-in at the upstream; see `identity/`).

use std::sync::Arc;

use crate::Upstream;
#[cfg(feature = "mint")]
use crate::identity::Mint;
use crate::identity::{ActsAs, Exchange, Exchanger};

impl Upstream {
    /// Calls it as each caller: their token exchanged for one it accepts (see [`Exchange`]),
    /// in a session of their own. For an HTTP upstream; a started one
    /// ([`per_caller`](Upstream::per_caller)) gets the token as `${caller.token}` in its
    /// [`env`](Upstream::env).
    ///
    /// ```
    /// use toolsmith_gateway::{Exchange, Upstream};
    ///
    /// let up = Upstream::http("tickets", "https://tickets.example/mcp")
    ///     .exchange(Exchange::new("https://idp.example/token", "gateway").client_secret("${S}"));
    /// assert_eq!(up.name(), "tickets");
    /// ```
    pub fn exchange(mut self, exchange: Exchange) -> Self {
        let exchanger: Arc<dyn ActsAs> = Arc::new(Exchanger::new(&exchange));
        self.acts_as = Some(exchanger);
        self
    }

    /// Calls it as each caller, with a token the gateway mints for them (see [`Mint`]); one
    /// session per caller (bounded by [`per_caller`](Upstream::per_caller)).
    ///
    /// ```
    /// let up = toolsmith_gateway::Upstream::http("archive", "https://archive.internal/mcp")
    ///     .mint(toolsmith_gateway::Mint::new("https://archive.internal/mcp"));
    /// assert_eq!(up.name(), "archive");
    /// ```
    #[cfg(feature = "mint")]
    pub fn mint(mut self, mint: Mint) -> Self {
        self.acts_as = Some(Arc::new(mint));
        self
    }
}
