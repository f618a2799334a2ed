use toolsmith::resource;

#[resource(uri = "notes://index")]
fn index() -> String {
    String::new()
}

fn main() {}
