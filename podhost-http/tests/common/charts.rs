//! The charts of a page as a test reads them: each chart's table (rows of cells' text) and its
//! SVG, read as XML on its own, with the marks it draws.

use std::collections::HashMap;

use quick_xml::{Reader, events::Event};

/// The charts' tables of a page by the chart's id: rows of cells' text, the header row first.
pub fn tables(html: &str) -> HashMap<String, Vec<Vec<String>>> {
    let mut found = HashMap::new();
    let marker = "<table class=\"chart-data\" id=\"";
    let mut rest = html;
    while let Some(at) = rest.find(marker) {
        let from = &rest[at..];
        let id_start = marker.len();
        let id_end = id_start + from[id_start..].find('"').unwrap();
        let id = from[id_start..id_end]
            .trim_end_matches("-table")
            .to_string();
        let end = from.find("</table>").unwrap() + "</table>".len();
        let mut reader = Reader::from_str(&from[..end]);
        let mut rows: Vec<Vec<String>> = Vec::new();
        let mut cell: Option<String> = None;
        loop {
            match reader.read_event().unwrap() {
                Event::Start(e) if e.name().as_ref() == b"tr" => rows.push(Vec::new()),
                Event::Start(e) if matches!(e.name().as_ref(), b"th" | b"td") => {
                    cell = Some(String::new());
                }
                Event::Text(t) => {
                    if let Some(cell) = &mut cell {
                        cell.push_str(&t.decode().unwrap());
                    }
                }
                Event::GeneralRef(r) => {
                    if let Some(cell) = &mut cell {
                        let name = r.decode().unwrap();
                        cell.push_str(match name.as_ref() {
                            "amp" => "&",
                            "lt" => "<",
                            "gt" => ">",
                            "quot" => "\"",
                            "#x27" | "#39" => "'",
                            other => panic!("entity {other}"),
                        });
                    }
                }
                Event::End(e) if matches!(e.name().as_ref(), b"th" | b"td") => {
                    rows.last_mut().unwrap().push(cell.take().unwrap());
                }
                Event::Eof => break,
                _ => {}
            }
        }
        found.insert(id, rows);
        rest = &from[end..];
    }
    found
}

/// The charts of a page by id, each SVG read as XML on its own (an error fails the test), with
/// how many marks it draws: lines of two points or more, bars of some height, points.
pub fn drawings(html: &str) -> HashMap<String, usize> {
    let mut found = HashMap::new();
    let marker = "<figure class=\"chart\" id=\"";
    let mut rest = html;
    while let Some(at) = rest.find(marker) {
        let from = &rest[at + marker.len()..];
        let id = from[..from.find('"').unwrap()].to_string();
        let start = from.find("<svg").unwrap();
        let end = from.find("</svg>").unwrap() + "</svg>".len();
        let svg = &from[start..end];
        let mut reader = Reader::from_str(svg);
        let (mut depth, mut marks) = (0i32, 0usize);
        loop {
            let event = reader
                .read_event()
                .unwrap_or_else(|e| panic!("the SVG of {id} is not XML: {e}\n{svg}"));
            match event {
                Event::Start(e) => {
                    depth += 1;
                    let attr = |name: &[u8]| {
                        e.try_get_attribute(name)
                            .unwrap()
                            .map(|a| String::from_utf8(a.value.to_vec()).unwrap())
                    };
                    match e.name().as_ref() {
                        b"polyline" => {
                            let points = attr(b"points").unwrap_or_default();
                            if points.split(' ').count() > 1 {
                                marks += 1;
                            }
                        }
                        b"rect" => {
                            let height: f64 = attr(b"height").unwrap().parse().unwrap();
                            let width: f64 = attr(b"width").unwrap().parse().unwrap();
                            if height > 0.0 && width > 0.0 {
                                marks += 1;
                            }
                        }
                        b"circle" => marks += 1,
                        _ => {}
                    }
                }
                Event::Empty(_) => panic!("{id}: an element without an end tag"),
                Event::End(_) => depth -= 1,
                Event::Eof => break,
                _ => {}
            }
        }
        assert_eq!(depth, 0, "{id}");
        found.insert(id, marks);
        rest = &from[end..];
    }
    found
}
