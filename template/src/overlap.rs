//! Whether two templates can match one URI: each is a sequence over characters (a literal
//! character, one character of a variable's class, any number of them), and the product of
//! the two is searched for a way through both.

use std::collections::HashSet;

use crate::{Part, Template, in_class};

impl Template {
    /// Whether some URI matches both templates (then a read of it could not tell which one
    /// is meant).
    ///
    /// ```
    /// use toolsmith_template::Template;
    ///
    /// let notes = Template::parse("notes://{id}").unwrap();
    /// assert!(notes.overlaps(&Template::parse("notes://{name}").unwrap()));
    /// assert!(!notes.overlaps(&Template::parse("notes://{id}/tags").unwrap()));
    /// ```
    pub fn overlaps(&self, other: &Template) -> bool {
        let (a, b) = (self.elements(), other.elements());
        let mut seen = HashSet::new();
        let mut todo = vec![(0, 0)];
        while let Some((i, j)) = todo.pop() {
            if !seen.insert((i, j)) {
                continue;
            }
            if i == a.len() && j == b.len() {
                return true;
            }
            // A `*` may match nothing.
            if let Some(Element::Many(_)) = a.get(i) {
                todo.push((i + 1, j));
            }
            if let Some(Element::Many(_)) = b.get(j) {
                todo.push((i, j + 1));
            }
            let (Some(x), Some(y)) = (a.get(i), b.get(j)) else {
                continue;
            };
            if x.class().meets(&y.class()) {
                let next_i = if matches!(x, Element::Many(_)) {
                    i
                } else {
                    i + 1
                };
                let next_j = if matches!(y, Element::Many(_)) {
                    j
                } else {
                    j + 1
                };
                todo.push((next_i, next_j));
            }
        }
        false
    }

    /// The template as a sequence over characters: a literal character, one character of a
    /// variable's class, or any number of them (`{var}` is one, then many).
    fn elements(&self) -> Vec<Element> {
        let mut elements = Vec::new();
        for part in &self.parts {
            match part {
                Part::Literal(literal) => elements.extend(literal.chars().map(Element::Char)),
                Part::Variable { reserved, .. } => {
                    elements.push(Element::One(*reserved));
                    elements.push(Element::Many(*reserved));
                }
            }
        }
        elements
    }
}

enum Element {
    Char(char),
    One(bool),
    Many(bool),
}

enum Class {
    Char(char),
    Variable { reserved: bool },
}

impl Element {
    fn class(&self) -> Class {
        match self {
            Element::Char(c) => Class::Char(*c),
            Element::One(reserved) | Element::Many(reserved) => Class::Variable {
                reserved: *reserved,
            },
        }
    }
}

impl Class {
    /// Whether one character is in both.
    fn meets(&self, other: &Class) -> bool {
        match (self, other) {
            (Class::Char(a), Class::Char(b)) => a == b,
            (Class::Char(c), Class::Variable { reserved })
            | (Class::Variable { reserved }, Class::Char(c)) => in_class(*c, *reserved),
            // Both take letters.
            (Class::Variable { .. }, Class::Variable { .. }) => true,
        }
    }
}
