//! Reading an upstream's lists (tools, resources, templates, prompts) page by page, bounded:
//! at most [`MAX_PAGES`] pages and [`MAX_LISTED`] entries of each list, a cursor the upstream
//! names twice ends the list, and each list is read within the upstream's list timeout. An
//! upstream cannot hold the gateway's start, a restart or a re-list forever, nor fill its
//! memory: what it lists past a bound is left out, with a warning naming it.

use std::collections::HashSet;
use std::future::Future;
use std::time::Duration;

use rmcp::ServiceError;
use rmcp::model::PaginatedRequestParams;

use crate::Error;

/// The most pages of one list read from an upstream; the rest are left out.
pub(crate) const MAX_PAGES: usize = 1_000;

/// The most entries of one list (tools, resources, templates or prompts) kept from an
/// upstream; the rest are left out.
pub(crate) const MAX_LISTED: usize = 10_000;

/// How long an upstream may take to list its tools (every page), and again each of its
/// resources, templates and prompts, by default.
pub(crate) const DEFAULT_LIST_TIMEOUT: Duration = Duration::from_secs(30);

/// Every page of the list `what` (`"tools/list"`) of `upstream`, as `page` reads one page
/// from a cursor (its entries and the next cursor): within `limit`, at most [`MAX_PAGES`]
/// pages and [`MAX_LISTED`] entries, ended early by a cursor named twice (each bound a
/// warning naming the upstream, and what was read is kept).
pub(crate) async fn paged<T, F, Fut>(
    upstream: &str,
    what: &str,
    limit: Duration,
    page: F,
) -> Result<Vec<T>, Error>
where
    F: FnMut(Option<PaginatedRequestParams>) -> Fut,
    Fut: Future<Output = Result<(Vec<T>, Option<String>), ServiceError>>,
{
    let failed = |why: String| Error::List {
        upstream: upstream.to_owned(),
        why,
    };
    match tokio::time::timeout(limit, read(upstream, what, page)).await {
        Ok(Ok(listed)) => Ok(listed),
        Ok(Err(err)) => Err(failed(format!(
            "its {what} failed: {}",
            crate::told::service(&err)
        ))),
        Err(_) => Err(failed(format!(
            "it did not answer {what} within {limit:?}; raise `list_timeout_secs` if it is only slow"
        ))),
    }
}

/// The pages of [`paged`], without its time limit.
async fn read<T, F, Fut>(upstream: &str, what: &str, mut page: F) -> Result<Vec<T>, ServiceError>
where
    F: FnMut(Option<PaginatedRequestParams>) -> Fut,
    Fut: Future<Output = Result<(Vec<T>, Option<String>), ServiceError>>,
{
    let mut listed: Vec<T> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut cursor: Option<String> = None;
    for pages in 1..=MAX_PAGES {
        let params =
            cursor.map(|cursor| PaginatedRequestParams::default().with_cursor(Some(cursor)));
        let (entries, next) = page(params).await?;
        let room = MAX_LISTED - listed.len();
        if entries.len() > room {
            listed.extend(entries.into_iter().take(room));
            tracing::warn!(
                upstream,
                list = what,
                kept = MAX_LISTED,
                "it lists more than {MAX_LISTED} entries: the rest are left out"
            );
            return Ok(listed);
        }
        listed.extend(entries);
        let Some(next) = next else {
            return Ok(listed);
        };
        if !seen.insert(next.clone()) {
            tracing::warn!(
                upstream,
                list = what,
                cursor = %toolsmith_audit::shown(&next),
                "it named a cursor it had named before: the list ends there"
            );
            return Ok(listed);
        }
        if pages == MAX_PAGES {
            tracing::warn!(
                upstream,
                list = what,
                kept = listed.len(),
                "it lists more than {MAX_PAGES} pages: the rest are left out"
            );
        }
        cursor = Some(next);
    }
    Ok(listed)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An upstream's pages, as `next` names the cursor after each (`n`: the page read).
    async fn listed(
        per_page: usize,
        next: impl Fn(usize) -> Option<String>,
    ) -> (Vec<usize>, usize) {
        let mut pages = 0;
        let read = paged("up", "tools/list", Duration::from_secs(5), |_| {
            pages += 1;
            let n = pages;
            let entries: Vec<usize> = (0..per_page).map(|i| n * per_page + i).collect();
            std::future::ready(Ok((entries, next(n))))
        })
        .await
        .unwrap();
        (read, pages)
    }

    #[tokio::test]
    async fn an_endless_list_stops_at_its_bounds() {
        // Fresh cursors forever, one entry a page: the pages' bound.
        let (read, pages) = listed(1, |n| Some(format!("c{n}"))).await;
        assert_eq!((read.len(), pages), (MAX_PAGES, MAX_PAGES));
        // Many entries a page: the entries' bound, first.
        let (read, pages) = listed(600, |n| Some(format!("c{n}"))).await;
        assert_eq!(read.len(), MAX_LISTED);
        assert_eq!(pages, MAX_LISTED.div_ceil(600));
        // The same cursor again: the list ends there.
        let (read, pages) = listed(2, |_| Some("again".into())).await;
        assert_eq!((read.len(), pages), (4, 2));
        // An honest list: every page.
        let (read, pages) = listed(3, |n| (n < 4).then(|| format!("c{n}"))).await;
        assert_eq!((read.len(), pages), (12, 4));
    }

    #[tokio::test]
    async fn a_list_never_answered_is_an_error_naming_the_upstream() {
        let never = paged::<(), _, _>("slow", "tools/list", Duration::from_millis(50), |_| {
            std::future::pending()
        });
        let err = never.await.unwrap_err().to_string();
        assert!(
            err.contains("upstream 'slow'") && err.contains("tools/list within 50ms"),
            "{err}"
        );
    }
}
