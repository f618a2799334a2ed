//! The API service's product catalog (TM Dev Lab v2's `api-service`, rewritten in Rust: this
//! machine has no Go): 100,000 products built by the same formulas, searched, looked up and
//! priced as the original does, so that every server under test gets the same answers
//! (`search_products`' check expects 2,251 Electronics products between 50 and 500).

use serde::{Deserialize, Serialize};

const CATEGORIES: [&str; 20] = [
    "Electronics",
    "Books",
    "Clothing",
    "Sports",
    "Home",
    "Garden",
    "Toys",
    "Food",
    "Beauty",
    "Automotive",
    "Music",
    "Movies",
    "Games",
    "Office",
    "Health",
    "Pets",
    "Travel",
    "Tools",
    "Jewelry",
    "Baby",
];

const BRANDS: [&str; 50] = [
    "Alpha", "Beta", "Gamma", "Delta", "Epsilon", "Zeta", "Eta", "Theta", "Iota", "Kappa",
    "Lambda", "Mu", "Nu", "Xi", "Omicron", "Pi", "Rho", "Sigma", "Tau", "Upsilon", "Phi", "Chi",
    "Psi", "Omega", "Apex", "Nexus", "Vertex", "Zenith", "Nadir", "Flux", "Forge", "Craft",
    "Build", "Make", "Create", "Design", "Style", "Form", "Shape", "Mold", "Cast", "Weld", "Fuse",
    "Bond", "Link", "Chain", "Wire", "Mesh", "Weave", "Knit",
];

const TAGS: [&str; 8] = [
    "sale",
    "new",
    "featured",
    "bestseller",
    "clearance",
    "limited",
    "popular",
    "exclusive",
];

/// How many products the catalog holds.
pub const PRODUCTS: usize = 100_000;

/// One product, as the API service sends it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Product {
    pub id: u32,
    pub sku: String,
    pub name: String,
    pub category: String,
    pub brand: String,
    pub price: f64,
    pub stock: i32,
    pub rating: f32,
    pub tags: Vec<String>,
    pub weight: f64,
    pub description: String,
}

/// `GET /products/search`'s answer.
#[derive(Debug, Serialize)]
pub struct Found<'a> {
    pub category: &'a str,
    pub total_found: usize,
    pub products: Vec<&'a Product>,
}

/// An item of `POST /cart/calculate`'s body.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CartItem {
    pub product_id: i64,
    pub quantity: i64,
}

/// `POST /cart/calculate`'s body.
#[derive(Debug, Deserialize)]
pub struct CartRequest {
    pub user_id: String,
    pub items: Vec<CartItem>,
}

/// `POST /cart/calculate`'s answer.
#[derive(Debug, Serialize)]
pub struct Priced {
    pub order_id: String,
    pub user_id: String,
    pub subtotal: f64,
    pub tax: f64,
    pub shipping: f64,
    pub discount: f64,
    pub total: f64,
    pub items_count: usize,
}

fn cents(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

/// The catalog, with each category's products in id order.
pub struct Catalog {
    products: Vec<Product>,
    by_category: Vec<Vec<u32>>,
}

impl Default for Catalog {
    fn default() -> Self {
        Self::new()
    }
}

impl Catalog {
    /// The 100,000 products.
    pub fn new() -> Catalog {
        let mut by_category = vec![Vec::new(); CATEGORIES.len()];
        let products = (0..PRODUCTS)
            .map(|i| {
                let (category, brand) = (CATEGORIES[i % 20], BRANDS[i % 50]);
                by_category[i % 20].push(i as u32);
                Product {
                    id: i as u32 + 1,
                    sku: format!("SKU-{:06}", i + 1),
                    name: format!("{brand} {category} Item {}", i + 1),
                    category: category.to_owned(),
                    brand: brand.to_owned(),
                    price: 1.0 + (i % 99_900) as f64 / 100.0,
                    stock: (i % 501) as i32,
                    rating: 1.0 + (i % 40) as f32 / 10.0,
                    tags: (0..2 + i % 3)
                        .map(|j| TAGS[(i + j) % 8].to_owned())
                        .collect(),
                    weight: cents((1 + i % 100) as f64 * 0.1),
                    description: format!("Quality {category} by {brand}. SKU {:06}.", i + 1),
                }
            })
            .collect();
        Catalog {
            products,
            by_category,
        }
    }

    /// The products of `category` priced within `[min, max]`, cheapest first, at most `limit`
    /// of them, and how many there are in all.
    pub fn search<'a>(&'a self, category: &'a str, min: f64, max: f64, limit: usize) -> Found<'a> {
        let Some(at) = CATEGORIES.iter().position(|c| *c == category) else {
            return Found {
                category,
                total_found: 0,
                products: Vec::new(),
            };
        };
        let mut matching: Vec<&Product> = self.by_category[at]
            .iter()
            .map(|&i| &self.products[i as usize])
            .filter(|p| p.price >= min && p.price <= max)
            .collect();
        matching.sort_by(|a, b| a.price.total_cmp(&b.price));
        let total_found = matching.len();
        matching.truncate(limit);
        Found {
            category,
            total_found,
            products: matching,
        }
    }

    /// Product `id` (1-based).
    pub fn product(&self, id: usize) -> Option<&Product> {
        id.checked_sub(1).and_then(|i| self.products.get(i))
    }

    /// The order's subtotal, tax (8.5%), shipping (5.99, free from 100) and discount (10%
    /// from 100); unknown products count nothing.
    pub fn price(&self, cart: &CartRequest) -> Priced {
        let subtotal = cents(
            cart.items
                .iter()
                .filter_map(|item| {
                    let product = self.product(usize::try_from(item.product_id).ok()?)?;
                    Some(product.price * item.quantity as f64)
                })
                .sum(),
        );
        let tax = cents(subtotal * 0.085);
        let (shipping, discount) = match subtotal >= 100.0 {
            true => (0.0, cents(subtotal * 0.10)),
            false => (5.99, 0.0),
        };
        Priced {
            order_id: format!("ORD-{}-{}", cart.user_id.replace('-', ""), cart.items.len()),
            user_id: cart.user_id.clone(),
            subtotal,
            tax,
            shipping,
            discount,
            total: cents(subtotal + tax + shipping - discount),
            items_count: cart.items.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_benchmark_search_finds_what_its_check_expects() {
        let catalog = Catalog::new();
        let found = catalog.search("Electronics", 50.0, 500.0, 10);
        assert_eq!(found.total_found, 2251);
        assert_eq!(found.products.len(), 10);
        assert!(found.products.windows(2).all(|w| w[0].price <= w[1].price));
        assert_eq!(catalog.search("Nothing", 0.0, 1e9, 10).total_found, 0);
        let cart = CartRequest {
            user_id: "user-00001".into(),
            items: vec![
                CartItem {
                    product_id: 42,
                    quantity: 2,
                },
                CartItem {
                    product_id: 1337,
                    quantity: 1,
                },
            ],
        };
        let priced = catalog.price(&cart);
        assert_eq!(priced.order_id, "ORD-user00001-2");
        assert!(priced.total > 0.0 && priced.items_count == 2);
    }
}
