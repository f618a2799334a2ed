use toolsmith::tool;

pub struct Report {
    pub lines: Vec<String>,
}

/// Make a report.
#[tool(read_only)]
fn report() -> Report {
    Report { lines: vec![] }
}

fn main() {}
