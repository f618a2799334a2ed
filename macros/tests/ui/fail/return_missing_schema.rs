use serde::Serialize;
use toolsmith::tool;

#[derive(Serialize)]
pub struct Report {
    pub lines: Vec<String>,
}

/// Make a report.
#[tool(read_only)]
fn report() -> Result<Report, toolsmith::ToolError> {
    Ok(Report { lines: vec![] })
}

fn main() {}
