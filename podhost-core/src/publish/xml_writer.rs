//! The writer the feed is written with: elements and attributes cleaned of what XML 1.0 cannot
//! carry, text escaped, show notes as CDATA through the notes policy.

use std::io::Cursor;

use quick_xml::{
    Writer,
    events::{BytesCData, BytesEnd, BytesStart, BytesText, Event},
};

use super::{
    notes::feed_notes,
    xml_text::{clean, clean_value},
};

pub(super) struct Xml {
    pub(super) writer: Writer<Cursor<Vec<u8>>>,
}

impl Xml {
    pub(super) fn event(&mut self, event: Event<'_>) {
        // Writing into a Vec cannot fail.
        let _ = self.writer.write_event(event);
    }

    pub(super) fn open(&mut self, name: &str, attrs: &[(&str, &str)]) {
        let mut start = BytesStart::new(name);
        for (k, v) in attrs {
            start.push_attribute((*k, clean(v).as_ref()));
        }
        self.event(Event::Start(start));
    }

    pub(super) fn close(&mut self, name: &str) {
        self.event(Event::End(BytesEnd::new(name)));
    }

    pub(super) fn empty(&mut self, name: &str, attrs: &[(&str, &str)]) {
        let mut start = BytesStart::new(name);
        for (k, v) in attrs {
            start.push_attribute((*k, clean(v).as_ref()));
        }
        self.event(Event::Empty(start));
    }

    /// `<name attrs>text</name>`, the text cleaned and escaped; nothing when no text is left.
    pub(super) fn text_with(&mut self, name: &str, attrs: &[(&str, &str)], text: &str) {
        let text = clean_value(text);
        if text.is_empty() {
            return;
        }
        self.open(name, attrs);
        self.event(Event::Text(BytesText::new(&text)));
        self.close(name);
    }

    /// `<name>text</name>`, the text cleaned and escaped; nothing when no text is left.
    pub(super) fn text(&mut self, name: &str, text: &str) {
        self.text_with(name, &[], text);
    }

    /// `<name><![CDATA[notes]]></name>`: show notes, HTML cleaned by the notes policy the pages
    /// share (`notes.rs`; links without `rel`, see `Medium::Feed`), plain text as written;
    /// nothing when no text is left.
    pub(super) fn notes(&mut self, name: &str, notes: &str) {
        self.cdata(name, &feed_notes(notes));
    }

    /// `<name><![CDATA[html]]></name>`, the text cleaned, split where it holds `]]>`.
    pub(super) fn cdata(&mut self, name: &str, html: &str) {
        let html = clean_value(html);
        if html.is_empty() {
            return;
        }
        self.open(name, &[]);
        for section in BytesCData::escaped(&html) {
            self.event(Event::CData(section));
        }
        self.close(name);
    }
}
