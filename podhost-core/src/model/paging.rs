//! Paging and ordering of lists: the bounds live here, once.

use crate::error::{Error, FieldErrors, Result};

/// A valid page request: number from 1, size from 1 to [`PageRequest::MAX_SIZE`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageRequest {
    number: u32,
    size: u32,
}

impl PageRequest {
    /// The largest page.
    pub const MAX_SIZE: u32 = 500;
    /// The page size when none is asked for.
    pub const DEFAULT_SIZE: u32 = 50;

    /// Validates a page request; errors name the fields `page.number` and `page.size`.
    pub fn new(number: Option<i64>, size: Option<i64>) -> Result<Self> {
        let mut errors = FieldErrors::default();
        let number = number.unwrap_or(1);
        let size = size.unwrap_or(i64::from(Self::DEFAULT_SIZE));
        if number < 1 || number > i64::from(u32::MAX) {
            errors.add("page.number", "the page number must be at least 1");
        }
        if size < 1 {
            errors.add("page.size", "the page size must be at least 1");
        } else if size > i64::from(Self::MAX_SIZE) {
            errors.add(
                "page.size",
                format!("the page size may not be greater than {}", Self::MAX_SIZE),
            );
        }
        errors.into_result()?;
        Ok(PageRequest {
            number: number as u32,
            size: size as u32,
        })
    }

    /// The page number, from 1.
    pub fn number(self) -> u32 {
        self.number
    }

    /// The page size.
    pub fn size(self) -> u32 {
        self.size
    }

    /// Where this page starts in the whole list, and how many items it takes.
    pub(crate) fn bounds(self) -> (usize, usize) {
        let start = (self.number as usize - 1).saturating_mul(self.size as usize);
        (start, self.size as usize)
    }
}

impl Default for PageRequest {
    fn default() -> Self {
        PageRequest {
            number: 1,
            size: Self::DEFAULT_SIZE,
        }
    }
}

/// One page of a list.
#[derive(Clone, Debug)]
pub struct Page<T> {
    /// The items on this page.
    pub items: Vec<T>,
    /// How many items matched before paging.
    pub total: usize,
    /// The page that was asked for.
    pub request: PageRequest,
    /// When this page changes by itself, with no write (a scheduled episode publishes); `None`
    /// when only a write changes it.
    pub changes_at: Option<jiff::Timestamp>,
}

impl<T> Page<T> {
    /// The same page with each item mapped.
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Page<U> {
        Page {
            items: self.items.into_iter().map(f).collect(),
            total: self.total,
            request: self.request,
            changes_at: self.changes_at,
        }
    }
}

/// Sort direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SortDir {
    /// Smallest first.
    Asc,
    /// Largest first.
    #[default]
    Desc,
}

/// How to order episodes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EpisodeSort {
    /// By publishing date, newest first unless ascending is asked for (the default).
    #[default]
    PublishDate,
    /// By the time of the last change.
    LastUpdate,
    /// Public ones apart from drafts.
    IsPublic,
}

/// A query of a feed's episodes.
#[derive(Clone, Debug, Default)]
pub struct EpisodeListQuery {
    /// Sort key.
    pub sort_by: EpisodeSort,
    /// Descending order; `None` takes the key's natural order (newest first for dates).
    pub descending: Option<bool>,
    /// Case-insensitive text searched in title and description.
    pub filter: Option<String>,
    /// Which page.
    pub page: PageRequest,
}

impl Error {
    /// True for a validation error on the given field.
    pub fn is_invalid_field(&self, field: &str) -> bool {
        matches!(self, Error::Invalid(errors) if errors.fields().contains_key(field))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_bounds() {
        type Case = (
            Option<i64>,
            Option<i64>,
            Result<(u32, u32), &'static [&'static str]>,
        );
        let cases: [Case; 7] = [
            (None, None, Ok((1, 50))),
            (Some(3), Some(500), Ok((3, 500))),
            (Some(0), None, Err(&["page.number"])),
            (Some(-5), Some(1), Err(&["page.number"])),
            (None, Some(0), Err(&["page.size"])),
            (None, Some(501), Err(&["page.size"])),
            (Some(0), Some(501), Err(&["page.number", "page.size"])),
        ];
        for (number, size, expected) in cases {
            match (PageRequest::new(number, size), expected) {
                (Ok(p), Ok((n, s))) => assert_eq!((p.number(), p.size()), (n, s)),
                (Err(Error::Invalid(errors)), Err(fields)) => {
                    let got: Vec<_> = errors.fields().keys().map(String::as_str).collect();
                    assert_eq!(got, fields);
                }
                (got, want) => panic!("{number:?} {size:?}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn a_page_past_the_end_starts_past_it() {
        let page = PageRequest::new(Some(3), Some(2)).unwrap();
        assert_eq!(page.bounds(), (4, 2));
        let page = PageRequest::new(Some(9), Some(2)).unwrap();
        let items: Vec<i32> = [1, 2, 3].into_iter().skip(page.bounds().0).collect();
        assert!(items.is_empty());
    }
}
