//! Charts drawn on the server: each an inline SVG (no script, nothing fetched, colours from the
//! pages' one stylesheet, so the pages' Content-Security-Policy holds) with its numbers as a
//! table beside it, for screen readers and for copying. Three shapes: lines over an ordered axis
//! (downloads per day, episode curves against their median), ranked rows (apps, countries) and
//! columns over an ordered axis (hours of the day, months).
//!
//! Every element is written with an end tag: an HTML parser reads `<rect ...>` without one as
//! the parent of what follows.

use maud::{Markup, html};

use crate::locale::Locale;

/// The drawing's width in SVG units (it scales to the page).
const WIDTH: f64 = 640.0;
/// Room for the value axis's labels on the left.
const LEFT: f64 = 56.0;
/// Room on the right, so the last label fits.
const RIGHT: f64 = 16.0;
/// Room above the plot.
const TOP: f64 = 14.0;
/// Room below the plot for the category axis's labels.
const BOTTOM: f64 = 36.0;
/// The plot's height in lines and columns charts.
const PLOT: f64 = 190.0;
/// At most this many category labels under an axis.
const AXIS_LABELS: usize = 8;
/// Points are marked (with a hover title) up to this many per line.
const MARKED_POINTS: usize = 62;
/// A rows chart draws at most this many rows (the table has them all).
pub const DRAWN_ROWS: usize = 10;
/// A rows chart's table lists at most this many rows, the largest: a page's size does not grow
/// with the categories (a podcast's thousands of episodes; the API has them all).
pub const TABLED_ROWS: usize = 100;
/// The lines a chart tells apart by colour (more are drawn in the last colour).
const COLOURS: usize = 6;

/// Consecutive values of a line: (point, value).
type Run = Vec<(usize, f64)>;

/// One line of a [`LineChart`].
#[derive(Debug, Clone)]
pub struct Line {
    /// Its name, in the legend and the table's header.
    pub name: String,
    /// One value per point of the axis; none where the line has no value (it breaks there).
    pub values: Vec<Option<f64>>,
    /// Drawn as the reference the others are read against (dashed), such as a median.
    pub reference: bool,
}

/// Lines over an ordered axis.
#[derive(Debug, Clone)]
pub struct LineChart {
    /// Unique on its page (the labels' ids are made from it).
    pub id: String,
    /// What it shows.
    pub title: String,
    /// What the axis's points are (the table's first column), such as "Day".
    pub axis: String,
    /// The name of each point of the axis, as the table shows it (`2026-11-27`).
    pub points: Vec<String>,
    /// Shorter names under the drawn axis (`Nov 27`), one per point; none: the points' names.
    pub ticks: Option<Vec<String>>,
    /// What is counted, plural ("downloads"), for the points' titles.
    pub unit: String,
    /// The lines, drawn in order (the first on the bottom).
    pub lines: Vec<Line>,
}

/// How a [`BarChart`] lays its bars out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bars {
    /// Horizontal rows, largest first (ranked categories: apps, countries); at most
    /// [`DRAWN_ROWS`] drawn.
    Rows,
    /// Vertical columns in the given order (an ordered axis: hours, months).
    Columns,
}

/// Bars, one per category.
#[derive(Debug, Clone)]
pub struct BarChart {
    /// Unique on its page.
    pub id: String,
    /// What it shows.
    pub title: String,
    /// What the categories are (the table's first column), such as "App".
    pub axis: String,
    /// What is counted, plural ("downloads"): the table's second column, the bars' titles.
    pub unit: String,
    /// The categories and their values, in the order drawn.
    pub bars: Vec<(String, f64)>,
    /// Rows or columns.
    pub layout: Bars,
}

/// A number as the tables show it: digits alone (no separator, so it copies into a
/// spreadsheet), a fraction only when there is one.
pub fn number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else {
        format!("{}", (value * 100.0).round() / 100.0)
    }
}

/// A number as the drawings label it: in the reader's forms, thousands apart (`12,345`,
/// `12.345`).
fn label(locale: Locale, value: f64) -> String {
    locale.fraction(value)
}

/// A coordinate as written in the SVG.
fn at(v: f64) -> String {
    format!("{}", (v * 10.0).round() / 10.0)
}

/// The value axis: its top and the step between its grid lines (1, 2 or 5 times a power of ten,
/// whole numbers: counts are).
fn scale(max: f64) -> (f64, f64) {
    if max <= 0.0 || !max.is_finite() {
        return (4.0, 1.0);
    }
    let rough = max / 4.0;
    let magnitude = 10f64.powf(rough.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * magnitude)
        .find(|s| *s >= rough)
        .unwrap_or(10.0 * magnitude)
        .max(1.0)
        .round();
    ((max / step).ceil() * step, step)
}

/// Which of `count` points get a label under the axis: about [`AXIS_LABELS`], evenly.
fn labelled(count: usize) -> impl Iterator<Item = usize> {
    let every = count.div_ceil(AXIS_LABELS).max(1);
    (0..count).filter(move |i| i % every == 0)
}

/// The grid lines and labels of a value axis up to `top`, and the plot's frame.
fn value_axis(locale: Locale, top: f64, step: f64) -> Markup {
    let y = |v: f64| TOP + PLOT - v / top * PLOT;
    let mut ticks = Vec::new();
    let mut v = 0.0;
    while v <= top + step / 2.0 {
        ticks.push(v);
        v += step;
    }
    html! {
        g.axis {
            @for v in &ticks {
                line.grid x1=(at(LEFT)) x2=(at(WIDTH - RIGHT)) y1=(at(y(*v))) y2=(at(y(*v))) {}
                text x=(at(LEFT - 8.0)) y=(at(y(*v) + 4.0)) text-anchor="end" { (label(locale, *v)) }
            }
        }
    }
}

/// The category labels under a plot: point `i` of `count` at `x(i)`.
fn category_axis(names: &[String], x: impl Fn(usize) -> f64) -> Markup {
    let count = names.len();
    html! {
        g.axis {
            @for i in labelled(count) {
                @let anchor = if count > 1 && i == 0 && x(i) - LEFT < 24.0 { "start" } else { "middle" };
                text x=(at(x(i))) y=(at(TOP + PLOT + 20.0)) text-anchor=(anchor) { (names[i]) }
            }
        }
    }
}

fn svg_open(id: &str, height: f64, description: &str, body: Markup) -> Markup {
    let title_id = format!("{id}-svg");
    html! {
        div.chart-canvas {
            svg xmlns="http://www.w3.org/2000/svg" viewBox=(format!("0 0 {} {}", WIDTH, at(height)))
                role="img" aria-labelledby=(title_id) {
                title id=(title_id) { (description) }
                (body)
            }
        }
    }
}

fn colour(i: usize) -> String {
    format!("k{}", i.min(COLOURS - 1))
}

impl LineChart {
    /// The chart in `locale`: the drawing, a legend when there are several lines, and the
    /// table.
    pub fn render(&self, locale: Locale) -> Markup {
        let count = self.points.len();
        let max = self
            .lines
            .iter()
            .flat_map(|l| l.values.iter().flatten())
            .fold(0.0_f64, |m, v| m.max(*v));
        let (top, step) = scale(max);
        let x = |i: usize| {
            if count <= 1 {
                LEFT + (WIDTH - LEFT - RIGHT) / 2.0
            } else {
                LEFT + i as f64 * (WIDTH - LEFT - RIGHT) / (count - 1) as f64
            }
        };
        let y = |v: f64| TOP + PLOT - v / top * PLOT;
        // Each line as runs of consecutive values.
        let mut colours = 0;
        let drawn: Vec<(String, &Line, Vec<Run>)> = self
            .lines
            .iter()
            .map(|line| {
                let class = if line.reference {
                    "reference".to_string()
                } else {
                    colours += 1;
                    colour(colours - 1)
                };
                let mut runs: Vec<Run> = Vec::new();
                let mut run = Vec::new();
                for (i, v) in line.values.iter().enumerate().take(count) {
                    match v {
                        Some(v) => run.push((i, *v)),
                        None if !run.is_empty() => runs.push(std::mem::take(&mut run)),
                        None => {}
                    }
                }
                if !run.is_empty() {
                    runs.push(run);
                }
                (class, line, runs)
            })
            .collect();
        let total: f64 = self
            .lines
            .iter()
            .filter(|l| !l.reference)
            .flat_map(|l| l.values.iter().flatten())
            .sum();
        let description = locale.text_with(
            "chart-line-description",
            &[
                ("title", (&self.title).into()),
                ("total", label(locale, total).into()),
                ("unit", (&self.unit).into()),
                ("count", count.into()),
            ],
        );
        let body = html! {
            (value_axis(locale, top, step))
            (category_axis(self.ticks.as_ref().unwrap_or(&self.points), x))
            @for (class, line, runs) in &drawn {
                g class=(format!("line {class}")) {
                    @for run in runs {
                        @if run.len() > 1 {
                            polyline points=(run.iter().map(|(i, v)| format!("{},{}", at(x(*i)), at(y(*v)))).collect::<Vec<_>>().join(" ")) {}
                        }
                        @if run.len() == 1 || count <= MARKED_POINTS {
                            @for (i, v) in run {
                                circle cx=(at(x(*i))) cy=(at(y(*v))) r="3" {
                                    title { (line.name) ", " (self.points[*i]) ": " (label(locale, *v)) " " (self.unit) }
                                }
                            }
                        }
                    }
                }
            }
        };
        let header: Vec<&str> = std::iter::once(self.axis.as_str())
            .chain(self.lines.iter().map(|l| l.name.as_str()))
            .collect();
        let rows: Vec<Vec<String>> = (0..count)
            .map(|i| {
                std::iter::once(self.points[i].clone())
                    .chain(self.lines.iter().map(|l| match l.values.get(i) {
                        Some(Some(v)) => number(*v),
                        _ => "—".to_string(),
                    }))
                    .collect()
            })
            .collect();
        html! {
            figure.chart id=(self.id) {
                figcaption { (self.title) }
                (svg_open(&self.id, TOP + PLOT + BOTTOM, &description, body))
                @if self.lines.len() > 1 {
                    ul.legend {
                        @for (class, line, _) in &drawn {
                            li { span class=(format!("key {class}")) {} (line.name) }
                        }
                    }
                }
                (table(locale, &self.id, &self.title, &header, &rows))
            }
        }
    }
}

impl BarChart {
    /// The chart in `locale`: the drawing and the table (every category, also those not
    /// drawn; rows: the [`TABLED_ROWS`] largest).
    pub fn render(&self, locale: Locale) -> Markup {
        let total: f64 = self.bars.iter().map(|(_, v)| v).sum();
        let (shape, drawn) = match self.layout {
            Bars::Rows => ("chart-bar-description", self.bars.len().min(DRAWN_ROWS)),
            Bars::Columns => ("chart-column-description", self.bars.len()),
        };
        let description = locale.text_with(
            shape,
            &[
                ("title", (&self.title).into()),
                ("total", label(locale, total).into()),
                ("unit", (&self.unit).into()),
                ("count", self.bars.len().into()),
            ],
        );
        let (height, body) = match self.layout {
            Bars::Rows => self.rows(locale, drawn),
            Bars::Columns => (TOP + PLOT + BOTTOM, self.columns(locale)),
        };
        let unit = capitalized(&self.unit);
        let header = [self.axis.as_str(), unit.as_str()];
        let tabled = match self.layout {
            Bars::Rows => self.bars.len().min(TABLED_ROWS),
            Bars::Columns => self.bars.len(),
        };
        let rows: Vec<Vec<String>> = self
            .bars
            .iter()
            .take(tabled)
            .map(|(name, v)| vec![name.clone(), number(*v)])
            .collect();
        let count = self.bars.len();
        let caption = if tabled < count {
            Some(locale.text_with(
                "chart-drawn-and-tabled",
                &[
                    ("drawn", drawn.into()),
                    ("tabled", tabled.into()),
                    ("count", count.into()),
                ],
            ))
        } else if drawn < count {
            Some(locale.text_with(
                "chart-drawn",
                &[("drawn", drawn.into()), ("count", count.into())],
            ))
        } else {
            None
        };
        html! {
            figure.chart id=(self.id) {
                figcaption {
                    (self.title)
                    @if let Some(caption) = caption {
                        span.muted { " " (caption) }
                    }
                }
                (svg_open(&self.id, height, &description, body))
                // Nothing counted: the drawing says so once, and no table of no rows follows.
                @if !rows.is_empty() {
                    (table(locale, &self.id, &self.title, &header, &rows))
                }
            }
        }
    }

    /// Horizontal rows: the name, the bar, the value at its end.
    fn rows(&self, locale: Locale, drawn: usize) -> (f64, Markup) {
        const ROW: f64 = 26.0;
        const NAMES: f64 = 200.0;
        const VALUES: f64 = 64.0;
        let max = self.bars.iter().map(|(_, v)| *v).fold(0.0_f64, f64::max);
        let width = WIDTH - NAMES - VALUES;
        let height = (drawn.max(1) as f64) * ROW + 8.0;
        let body = html! {
            @if drawn == 0 {
                text.axis x=(at(WIDTH / 2.0)) y="22" text-anchor="middle" { (locale.text("chart-nothing-counted")) }
            }
            @for (i, (name, v)) in self.bars.iter().take(drawn).enumerate() {
                @let y = 4.0 + i as f64 * ROW;
                @let w = if max > 0.0 { (v / max * width).max(if *v > 0.0 { 1.0 } else { 0.0 }) } else { 0.0 };
                g {
                    title { (name) ": " (label(locale, *v)) " " (self.unit) }
                    text.name x=(at(NAMES - 8.0)) y=(at(y + 17.0)) text-anchor="end" { (short(name, 20)) }
                    rect.bar x=(at(NAMES)) y=(at(y + 4.0)) width=(at(w)) height="18" rx="3" {}
                    text.value x=(at(NAMES + w + 6.0)) y=(at(y + 17.0)) { (label(locale, *v)) }
                }
            }
        };
        (height, body)
    }

    /// Vertical columns over the plot, a value axis on the left.
    fn columns(&self, locale: Locale) -> Markup {
        let count = self.bars.len();
        let max = self.bars.iter().map(|(_, v)| *v).fold(0.0_f64, f64::max);
        let (top, step) = scale(max);
        let slot = (WIDTH - LEFT - RIGHT) / count.max(1) as f64;
        let x = |i: usize| LEFT + slot * (i as f64 + 0.5);
        let names: Vec<String> = self.bars.iter().map(|(n, _)| n.clone()).collect();
        html! {
            (value_axis(locale, top, step))
            (category_axis(&names, x))
            @for (i, (name, v)) in self.bars.iter().enumerate() {
                @let h = v / top * PLOT;
                rect.bar x=(at(x(i) - slot * 0.35)) y=(at(TOP + PLOT - h)) width=(at(slot * 0.7)) height=(at(h)) rx="2" {
                    title { (name) ": " (label(locale, *v)) " " (self.unit) }
                }
            }
        }
    }
}

/// `text` with its first letter in capitals (a column's header).
fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// `text` cut to `max` characters, with an ellipsis when cut.
fn short(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let mut cut: String = text.chars().take(max - 1).collect();
        cut.push('…');
        cut
    }
}

/// The numbers of a chart as a table, in a box that scrolls when long.
fn table(locale: Locale, id: &str, title: &str, header: &[&str], rows: &[Vec<String>]) -> Markup {
    html! {
        div.table-scroll tabindex="0" role="region" aria-label=(locale.text_with("chart-numbers", &[("title", title.into())])) {
            table.chart-data id=(format!("{id}-table")) {
                thead { tr { @for h in header { th scope="col" { (h) } } } }
                tbody {
                    @for row in rows {
                        tr {
                            @for (i, cell) in row.iter().enumerate() {
                                @if i == 0 { th scope="row" { (cell) } } @else { td { (cell) } }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_and_numbers() {
        let cases = [
            (0.0, (4.0, 1.0)),
            (3.0, (3.0, 1.0)),
            (7.0, (8.0, 2.0)),
            (17.0, (20.0, 5.0)),
            (1234.0, (1500.0, 500.0)),
        ];
        for (max, expected) in cases {
            assert_eq!(scale(max), expected, "{max}");
        }
        assert_eq!(number(3.0), "3");
        assert_eq!(number(2.5), "2.5");
        assert_eq!(label(Locale::ENGLISH, 1_234_567.0), "1,234,567");
        assert_eq!(label(Locale::ENGLISH, 999.0), "999");
        assert_eq!(
            label(Locale::parse("de").unwrap(), 1_234_567.0),
            "1.234.567"
        );
        assert_eq!(short("Overcast (iOS)", 24), "Overcast (iOS)");
        assert_eq!(short("abcdef", 4), "abc…");
    }

    /// Each chart's SVG is well-formed XML on its own, and its table has every value.
    #[test]
    fn charts_are_well_formed_and_tabled() {
        let line = LineChart {
            id: "days".into(),
            title: "Downloads per day".into(),
            axis: "Day".into(),
            points: vec!["Nov 1".into(), "Nov 2".into(), "Nov 3".into()],
            ticks: None,
            unit: "downloads".into(),
            lines: vec![
                Line {
                    name: "Ep <1>".into(),
                    values: vec![Some(1.0), None, Some(3.0)],
                    reference: false,
                },
                Line {
                    name: "Median".into(),
                    values: vec![Some(2.0), Some(2.5), None],
                    reference: true,
                },
            ],
        }
        .render(Locale::ENGLISH)
        .into_string();
        let bars = BarChart {
            id: "apps".into(),
            title: "Apps".into(),
            axis: "App".into(),
            unit: "downloads".into(),
            bars: (0..12)
                .map(|i| (format!("App & {i}"), f64::from(i)))
                .collect(),
            layout: Bars::Rows,
        }
        .render(Locale::ENGLISH)
        .into_string();
        for html in [&line, &bars] {
            let start = html.find("<svg").unwrap();
            let end = html.find("</svg>").unwrap() + "</svg>".len();
            let mut reader = quick_xml::Reader::from_str(&html[start..end]);
            let mut depth = 0;
            loop {
                match reader.read_event().unwrap() {
                    quick_xml::events::Event::Start(_) => depth += 1,
                    quick_xml::events::Event::End(_) => depth -= 1,
                    quick_xml::events::Event::Eof => break,
                    _ => {}
                }
            }
            assert_eq!(depth, 0);
        }
        assert!(line.contains("<td>2.5</td>") && line.contains("<td>—</td>"));
        assert!(line.contains("Ep &lt;1&gt;"));
        // Twelve rows in the table, ten drawn.
        assert_eq!(bars.matches("<tr>").count(), 13);
        assert_eq!(bars.matches("<rect").count(), DRAWN_ROWS);
        assert!(bars.contains("the 10 largest drawn; all 12 in the table"));
    }

    #[test]
    fn nothing_counted_is_said_once_without_an_empty_table() {
        let empty = BarChart {
            id: "apps".into(),
            title: "Apps".into(),
            axis: "App".into(),
            unit: "downloads".into(),
            bars: vec![],
            layout: Bars::Rows,
        }
        .render(Locale::ENGLISH)
        .into_string();
        assert_eq!(empty.matches("Nothing counted in this period").count(), 1);
        assert!(!empty.contains("<table"), "{empty}");
    }

    #[test]
    fn a_rows_table_stays_small_however_many_categories() {
        let many = BarChart {
            id: "episodes".into(),
            title: "Episodes".into(),
            axis: "Episode".into(),
            unit: "downloads".into(),
            bars: (0..10_000)
                .map(|i| (format!("Episode {i}"), f64::from(10_000 - i)))
                .collect(),
            layout: Bars::Rows,
        }
        .render(Locale::ENGLISH)
        .into_string();
        assert_eq!(many.matches("<tr>").count(), TABLED_ROWS + 1);
        assert!(many.contains("<th scope=\"row\">Episode 99</th>"));
        assert!(!many.contains(">Episode 100<"));
        assert!(many.contains("the 10 largest drawn, the 100 largest in the table, of 10,000"));
        assert!(many.len() < 40_000, "{} bytes", many.len());
    }
}
