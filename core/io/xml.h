// core/io/xml.h — text made safe inside XML and HTML (the SVG figures, the Anki deck's fields).
#pragma once

#include <string>

namespace core::io {

// Appends `ch` with & < > " ' as entities, and the control characters XML 1.0 forbids (all below
// 0x20 but tab, line feed and carriage return) as spaces.
void append_xml_escaped(std::string& out, char ch);
// Every character of `text` so.
std::string xml_escaped(const std::string& text);

} // namespace core::io
