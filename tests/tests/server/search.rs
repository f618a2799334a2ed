//! Registry search and `tools/list` pagination over a 120-tool fixture.
//!
//! Tool `fx_NNN` (N = 0..120): read-only when N % 3 == 0, additive and idempotent when
//! N % 3 == 2, else destructive; closed-world when N is even; category
//! alpha/beta/gamma/delta by N % 4; tagged `even` or `odd`, and `fives` when N % 5 == 0.

use rmcp::model::PaginatedRequestParams;
use toolsmith::{registry::Search, registry::SearchError, tool};

macro_rules! fixture {
    ($name:ident, $title:literal, [$($hint:tt)*], $category:literal, [$($tag:literal),*]) => {
        /// A fixture tool for search tests.
        #[tool($($hint)* title = $title, category = $category, tags = [$($tag),*])]
        fn $name() {}
    };
}

fixture!(
    fx_000,
    "Fixture 000",
    [read_only, closed_world,],
    "alpha",
    ["even", "fives"]
);
fixture!(fx_001, "Fixture 001", [], "beta", ["odd"]);
fixture!(
    fx_002,
    "Fixture 002",
    [destructive = false, idempotent, closed_world,],
    "gamma",
    ["even"]
);
fixture!(fx_003, "Fixture 003", [read_only,], "delta", ["odd"]);
fixture!(fx_004, "Fixture 004", [closed_world,], "alpha", ["even"]);
fixture!(
    fx_005,
    "Fixture 005",
    [destructive = false, idempotent,],
    "beta",
    ["odd", "fives"]
);
fixture!(
    fx_006,
    "Fixture 006",
    [read_only, closed_world,],
    "gamma",
    ["even"]
);
fixture!(fx_007, "Fixture 007", [], "delta", ["odd"]);
fixture!(
    fx_008,
    "Fixture 008",
    [destructive = false, idempotent, closed_world,],
    "alpha",
    ["even"]
);
fixture!(fx_009, "Fixture 009", [read_only,], "beta", ["odd"]);
fixture!(
    fx_010,
    "Fixture 010",
    [closed_world,],
    "gamma",
    ["even", "fives"]
);
fixture!(
    fx_011,
    "Fixture 011",
    [destructive = false, idempotent,],
    "delta",
    ["odd"]
);
fixture!(
    fx_012,
    "Fixture 012",
    [read_only, closed_world,],
    "alpha",
    ["even"]
);
fixture!(fx_013, "Fixture 013", [], "beta", ["odd"]);
fixture!(
    fx_014,
    "Fixture 014",
    [destructive = false, idempotent, closed_world,],
    "gamma",
    ["even"]
);
fixture!(
    fx_015,
    "Fixture 015",
    [read_only,],
    "delta",
    ["odd", "fives"]
);
fixture!(fx_016, "Fixture 016", [closed_world,], "alpha", ["even"]);
fixture!(
    fx_017,
    "Fixture 017",
    [destructive = false, idempotent,],
    "beta",
    ["odd"]
);
fixture!(
    fx_018,
    "Fixture 018",
    [read_only, closed_world,],
    "gamma",
    ["even"]
);
fixture!(fx_019, "Fixture 019", [], "delta", ["odd"]);
fixture!(
    fx_020,
    "Fixture 020",
    [destructive = false, idempotent, closed_world,],
    "alpha",
    ["even", "fives"]
);
fixture!(fx_021, "Fixture 021", [read_only,], "beta", ["odd"]);
fixture!(fx_022, "Fixture 022", [closed_world,], "gamma", ["even"]);
fixture!(
    fx_023,
    "Fixture 023",
    [destructive = false, idempotent,],
    "delta",
    ["odd"]
);
fixture!(
    fx_024,
    "Fixture 024",
    [read_only, closed_world,],
    "alpha",
    ["even"]
);
fixture!(fx_025, "Fixture 025", [], "beta", ["odd", "fives"]);
fixture!(
    fx_026,
    "Fixture 026",
    [destructive = false, idempotent, closed_world,],
    "gamma",
    ["even"]
);
fixture!(fx_027, "Fixture 027", [read_only,], "delta", ["odd"]);
fixture!(fx_028, "Fixture 028", [closed_world,], "alpha", ["even"]);
fixture!(
    fx_029,
    "Fixture 029",
    [destructive = false, idempotent,],
    "beta",
    ["odd"]
);
fixture!(
    fx_030,
    "Fixture 030",
    [read_only, closed_world,],
    "gamma",
    ["even", "fives"]
);
fixture!(fx_031, "Fixture 031", [], "delta", ["odd"]);
fixture!(
    fx_032,
    "Fixture 032",
    [destructive = false, idempotent, closed_world,],
    "alpha",
    ["even"]
);
fixture!(fx_033, "Fixture 033", [read_only,], "beta", ["odd"]);
fixture!(fx_034, "Fixture 034", [closed_world,], "gamma", ["even"]);
fixture!(
    fx_035,
    "Fixture 035",
    [destructive = false, idempotent,],
    "delta",
    ["odd", "fives"]
);
fixture!(
    fx_036,
    "Fixture 036",
    [read_only, closed_world,],
    "alpha",
    ["even"]
);
fixture!(fx_037, "Fixture 037", [], "beta", ["odd"]);
fixture!(
    fx_038,
    "Fixture 038",
    [destructive = false, idempotent, closed_world,],
    "gamma",
    ["even"]
);
fixture!(fx_039, "Fixture 039", [read_only,], "delta", ["odd"]);
fixture!(
    fx_040,
    "Fixture 040",
    [closed_world,],
    "alpha",
    ["even", "fives"]
);
fixture!(
    fx_041,
    "Fixture 041",
    [destructive = false, idempotent,],
    "beta",
    ["odd"]
);
fixture!(
    fx_042,
    "Fixture 042",
    [read_only, closed_world,],
    "gamma",
    ["even"]
);
fixture!(fx_043, "Fixture 043", [], "delta", ["odd"]);
fixture!(
    fx_044,
    "Fixture 044",
    [destructive = false, idempotent, closed_world,],
    "alpha",
    ["even"]
);
fixture!(
    fx_045,
    "Fixture 045",
    [read_only,],
    "beta",
    ["odd", "fives"]
);
fixture!(fx_046, "Fixture 046", [closed_world,], "gamma", ["even"]);
fixture!(
    fx_047,
    "Fixture 047",
    [destructive = false, idempotent,],
    "delta",
    ["odd"]
);
fixture!(
    fx_048,
    "Fixture 048",
    [read_only, closed_world,],
    "alpha",
    ["even"]
);
fixture!(fx_049, "Fixture 049", [], "beta", ["odd"]);
fixture!(
    fx_050,
    "Fixture 050",
    [destructive = false, idempotent, closed_world,],
    "gamma",
    ["even", "fives"]
);
fixture!(fx_051, "Fixture 051", [read_only,], "delta", ["odd"]);
fixture!(fx_052, "Fixture 052", [closed_world,], "alpha", ["even"]);
fixture!(
    fx_053,
    "Fixture 053",
    [destructive = false, idempotent,],
    "beta",
    ["odd"]
);
fixture!(
    fx_054,
    "Fixture 054",
    [read_only, closed_world,],
    "gamma",
    ["even"]
);
fixture!(fx_055, "Fixture 055", [], "delta", ["odd", "fives"]);
fixture!(
    fx_056,
    "Fixture 056",
    [destructive = false, idempotent, closed_world,],
    "alpha",
    ["even"]
);
fixture!(fx_057, "Fixture 057", [read_only,], "beta", ["odd"]);
fixture!(fx_058, "Fixture 058", [closed_world,], "gamma", ["even"]);
fixture!(
    fx_059,
    "Fixture 059",
    [destructive = false, idempotent,],
    "delta",
    ["odd"]
);
fixture!(
    fx_060,
    "Fixture 060",
    [read_only, closed_world,],
    "alpha",
    ["even", "fives"]
);
fixture!(fx_061, "Fixture 061", [], "beta", ["odd"]);
fixture!(
    fx_062,
    "Fixture 062",
    [destructive = false, idempotent, closed_world,],
    "gamma",
    ["even"]
);
fixture!(fx_063, "Fixture 063", [read_only,], "delta", ["odd"]);
fixture!(fx_064, "Fixture 064", [closed_world,], "alpha", ["even"]);
fixture!(
    fx_065,
    "Fixture 065",
    [destructive = false, idempotent,],
    "beta",
    ["odd", "fives"]
);
fixture!(
    fx_066,
    "Fixture 066",
    [read_only, closed_world,],
    "gamma",
    ["even"]
);
fixture!(fx_067, "Fixture 067", [], "delta", ["odd"]);
fixture!(
    fx_068,
    "Fixture 068",
    [destructive = false, idempotent, closed_world,],
    "alpha",
    ["even"]
);
fixture!(fx_069, "Fixture 069", [read_only,], "beta", ["odd"]);
fixture!(
    fx_070,
    "Fixture 070",
    [closed_world,],
    "gamma",
    ["even", "fives"]
);
fixture!(
    fx_071,
    "Fixture 071",
    [destructive = false, idempotent,],
    "delta",
    ["odd"]
);
fixture!(
    fx_072,
    "Fixture 072",
    [read_only, closed_world,],
    "alpha",
    ["even"]
);
fixture!(fx_073, "Fixture 073", [], "beta", ["odd"]);
fixture!(
    fx_074,
    "Fixture 074",
    [destructive = false, idempotent, closed_world,],
    "gamma",
    ["even"]
);
fixture!(
    fx_075,
    "Fixture 075",
    [read_only,],
    "delta",
    ["odd", "fives"]
);
fixture!(fx_076, "Fixture 076", [closed_world,], "alpha", ["even"]);
fixture!(
    fx_077,
    "Fixture 077",
    [destructive = false, idempotent,],
    "beta",
    ["odd"]
);
fixture!(
    fx_078,
    "Fixture 078",
    [read_only, closed_world,],
    "gamma",
    ["even"]
);
fixture!(fx_079, "Fixture 079", [], "delta", ["odd"]);
fixture!(
    fx_080,
    "Fixture 080",
    [destructive = false, idempotent, closed_world,],
    "alpha",
    ["even", "fives"]
);
fixture!(fx_081, "Fixture 081", [read_only,], "beta", ["odd"]);
fixture!(fx_082, "Fixture 082", [closed_world,], "gamma", ["even"]);
fixture!(
    fx_083,
    "Fixture 083",
    [destructive = false, idempotent,],
    "delta",
    ["odd"]
);
fixture!(
    fx_084,
    "Fixture 084",
    [read_only, closed_world,],
    "alpha",
    ["even"]
);
fixture!(fx_085, "Fixture 085", [], "beta", ["odd", "fives"]);
fixture!(
    fx_086,
    "Fixture 086",
    [destructive = false, idempotent, closed_world,],
    "gamma",
    ["even"]
);
fixture!(fx_087, "Fixture 087", [read_only,], "delta", ["odd"]);
fixture!(fx_088, "Fixture 088", [closed_world,], "alpha", ["even"]);
fixture!(
    fx_089,
    "Fixture 089",
    [destructive = false, idempotent,],
    "beta",
    ["odd"]
);
fixture!(
    fx_090,
    "Fixture 090",
    [read_only, closed_world,],
    "gamma",
    ["even", "fives"]
);
fixture!(fx_091, "Fixture 091", [], "delta", ["odd"]);
fixture!(
    fx_092,
    "Fixture 092",
    [destructive = false, idempotent, closed_world,],
    "alpha",
    ["even"]
);
fixture!(fx_093, "Fixture 093", [read_only,], "beta", ["odd"]);
fixture!(fx_094, "Fixture 094", [closed_world,], "gamma", ["even"]);
fixture!(
    fx_095,
    "Fixture 095",
    [destructive = false, idempotent,],
    "delta",
    ["odd", "fives"]
);
fixture!(
    fx_096,
    "Fixture 096",
    [read_only, closed_world,],
    "alpha",
    ["even"]
);
fixture!(fx_097, "Fixture 097", [], "beta", ["odd"]);
fixture!(
    fx_098,
    "Fixture 098",
    [destructive = false, idempotent, closed_world,],
    "gamma",
    ["even"]
);
fixture!(fx_099, "Fixture 099", [read_only,], "delta", ["odd"]);
fixture!(
    fx_100,
    "Fixture 100",
    [closed_world,],
    "alpha",
    ["even", "fives"]
);
fixture!(
    fx_101,
    "Fixture 101",
    [destructive = false, idempotent,],
    "beta",
    ["odd"]
);
fixture!(
    fx_102,
    "Fixture 102",
    [read_only, closed_world,],
    "gamma",
    ["even"]
);
fixture!(fx_103, "Fixture 103", [], "delta", ["odd"]);
fixture!(
    fx_104,
    "Fixture 104",
    [destructive = false, idempotent, closed_world,],
    "alpha",
    ["even"]
);
fixture!(
    fx_105,
    "Fixture 105",
    [read_only,],
    "beta",
    ["odd", "fives"]
);
fixture!(fx_106, "Fixture 106", [closed_world,], "gamma", ["even"]);
fixture!(
    fx_107,
    "Fixture 107",
    [destructive = false, idempotent,],
    "delta",
    ["odd"]
);
fixture!(
    fx_108,
    "Fixture 108",
    [read_only, closed_world,],
    "alpha",
    ["even"]
);
fixture!(fx_109, "Fixture 109", [], "beta", ["odd"]);
fixture!(
    fx_110,
    "Fixture 110",
    [destructive = false, idempotent, closed_world,],
    "gamma",
    ["even", "fives"]
);
fixture!(fx_111, "Fixture 111", [read_only,], "delta", ["odd"]);
fixture!(fx_112, "Fixture 112", [closed_world,], "alpha", ["even"]);
fixture!(
    fx_113,
    "Fixture 113",
    [destructive = false, idempotent,],
    "beta",
    ["odd"]
);
fixture!(
    fx_114,
    "Fixture 114",
    [read_only, closed_world,],
    "gamma",
    ["even"]
);
fixture!(fx_115, "Fixture 115", [], "delta", ["odd", "fives"]);
fixture!(
    fx_116,
    "Fixture 116",
    [destructive = false, idempotent, closed_world,],
    "alpha",
    ["even"]
);
fixture!(fx_117, "Fixture 117", [read_only,], "beta", ["odd"]);
fixture!(fx_118, "Fixture 118", [closed_world,], "gamma", ["even"]);
fixture!(
    fx_119,
    "Fixture 119",
    [destructive = false, idempotent,],
    "delta",
    ["odd"]
);

/// The numbers of the fixture tools a predicate selects.
fn expected(keep: impl Fn(usize) -> bool) -> Vec<String> {
    (0..120)
        .filter(|&n| keep(n))
        .map(|n| format!("fx_{n:03}"))
        .collect()
}

/// Every page of `query`, checking the page size and the total on each.
fn all_pages(query: Search) -> (Vec<String>, usize) {
    let registry = toolsmith_tests::declared_in(module_path!());
    let mut query = query;
    let size = query
        .page_size
        .unwrap_or(toolsmith::registry::Search::DEFAULT_PAGE_SIZE);
    let (mut names, mut pages) = (Vec::new(), 0);
    loop {
        let page = registry.search(&query).unwrap();
        pages += 1;
        assert!(page.tools.len() <= size);
        names.extend(page.tools.iter().map(|t| t.name().to_owned()));
        match page.next_cursor {
            Some(cursor) => {
                assert_eq!(page.tools.len(), size, "only the last page is short");
                query.cursor = Some(cursor);
            }
            None => {
                assert_eq!(names.len(), page.total);
                return (names, pages);
            }
        }
    }
}

#[test]
fn three_pages_of_fifty_cover_every_tool_once() {
    let registry = toolsmith_tests::declared_in(module_path!());
    let first = registry.search(&Search::new()).unwrap();
    assert_eq!((first.tools.len(), first.total), (50, 120));
    let (names, pages) = all_pages(Search::new());
    assert_eq!(pages, 3);
    assert_eq!(names, expected(|_| true));
    let (_, pages) = all_pages(Search::new().page_size(100));
    assert_eq!(pages, 2);
}

#[test]
fn hint_filters() {
    let names = |q: Search| all_pages(q).0;
    assert_eq!(
        names(Search::new().read_only(true)),
        expected(|n| n % 3 == 0)
    );
    assert_eq!(
        names(Search::new().read_only(false)),
        expected(|n| n % 3 != 0)
    );
    assert_eq!(
        names(Search::new().destructive(true)),
        expected(|n| n % 3 == 1)
    );
    assert_eq!(
        names(Search::new().destructive(false)),
        expected(|n| n % 3 != 1)
    );
    assert_eq!(
        names(Search::new().idempotent(true)),
        expected(|n| n % 3 != 1)
    );
    assert_eq!(
        names(Search::new().open_world(false)),
        expected(|n| n % 2 == 0)
    );
    assert_eq!(
        names(Search::new().open_world(true)),
        expected(|n| n % 2 == 1)
    );
}

#[test]
fn category_tag_and_text_filters() {
    let names = |q: Search| all_pages(q).0;
    assert_eq!(
        names(Search::new().category("beta")),
        expected(|n| n % 4 == 1)
    );
    assert_eq!(names(Search::new().tag("fives")), expected(|n| n % 5 == 0));
    assert_eq!(
        names(Search::new().tag("fives").tag("even")),
        expected(|n| n % 5 == 0 || n % 2 == 0),
        "tags match when any is present"
    );
    assert_eq!(
        names(Search::new().text("FIXTURE 00")),
        expected(|n| n < 10)
    );
    assert_eq!(
        names(Search::new().text("fx_11")),
        expected(|n| (110..120).contains(&n))
    );
    assert_eq!(
        names(Search::new().read_only(true).category("beta")),
        expected(|n| n % 3 == 0 && n % 4 == 1)
    );
    assert!(names(Search::new().category("none")).is_empty());
}

#[test]
fn bad_page_sizes_and_cursors_are_errors() {
    let registry = toolsmith_tests::declared_in(module_path!());
    assert_eq!(
        registry.search(&Search::new().page_size(0)).unwrap_err(),
        SearchError::PageSize(0)
    );
    assert_eq!(
        registry.search(&Search::new().page_size(101)).unwrap_err(),
        SearchError::PageSize(101)
    );
    let cursor = registry
        .search(&Search::new())
        .unwrap()
        .next_cursor
        .unwrap();
    let mut tampered = cursor.clone().into_bytes();
    tampered[0] = if tampered[0] == b'1' { b'2' } else { b'1' };
    let tampered = String::from_utf8(tampered).unwrap();
    for bad in [
        tampered.as_str(),
        "",
        "not a cursor",
        "ffff.0000000000000000",
        &cursor[..cursor.len() - 1],
    ] {
        let err = registry.search(&Search::new().cursor(bad)).unwrap_err();
        assert_eq!(err, SearchError::InvalidCursor, "{bad:?}");
    }
    let other_search = registry.search(&Search::new().read_only(false).cursor(cursor.as_str()));
    assert_eq!(
        other_search.unwrap_err(),
        SearchError::InvalidCursor,
        "a cursor belongs to its search"
    );
    assert!(registry.search(&Search::new().cursor(cursor)).is_ok());
}

#[test]
fn metadata_is_in_the_registry_and_in_meta() {
    let registry = toolsmith_tests::declared_in(module_path!());
    let tool = registry.get("fx_010").unwrap();
    assert_eq!(tool.category(), Some("gamma"));
    assert_eq!(tool.tags(), ["even", "fives"]);
    let meta = tool.mcp_tool().meta.clone().unwrap();
    assert_eq!(meta[toolsmith::tool::META_CATEGORY], "gamma");
    assert_eq!(
        meta[toolsmith::tool::META_TAGS],
        serde_json::json!(["even", "fives"])
    );
}

#[tokio::test]
async fn tools_list_paginates_with_next_cursor() {
    let (client_end, server_end) = tokio::io::duplex(1 << 20);
    let (read, write) = tokio::io::split(server_end);
    tokio::spawn(
        toolsmith_tests::server_of(module_path!())
            .page_size(50)
            .serve_io(read, write),
    );
    let client = rmcp::ServiceExt::serve((), client_end).await.unwrap();

    let first = client.list_tools(None).await.unwrap();
    assert_eq!(first.tools.len(), 50);
    let cursor = first.next_cursor.clone().expect("more pages");
    let second = client
        .list_tools(Some(
            PaginatedRequestParams::default().with_cursor(Some(cursor.clone())),
        ))
        .await
        .unwrap();
    assert_eq!(second.tools[0].name, "fx_050");
    let all = client.list_all_tools().await.unwrap();
    assert_eq!(all.len(), 120);

    let forged = format!("0{cursor}");
    let err = client
        .list_tools(Some(
            PaginatedRequestParams::default().with_cursor(Some(forged)),
        ))
        .await
        .unwrap_err();
    match err {
        rmcp::ServiceError::McpError(data) => {
            assert_eq!(data.code, rmcp::model::ErrorCode::INVALID_PARAMS);
            assert!(data.message.contains("invalid cursor"), "{}", data.message);
        }
        other => panic!("expected -32602, got {other:?}"),
    }
    assert_eq!(
        client.list_tools(None).await.unwrap().tools.len(),
        50,
        "still serving"
    );
    client.cancel().await.unwrap();
}
