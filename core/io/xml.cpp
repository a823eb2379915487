// core/io/xml.cpp
#include "core/io/xml.h"

namespace core::io {

void append_xml_escaped(std::string& out, char ch) {
    switch (ch) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&apos;"; break;
    default: out += static_cast<unsigned char>(ch) < 0x20 && ch != '\t' && ch != '\n' && ch != '\r' ? ' ' : ch;
    }
}

std::string xml_escaped(const std::string& text) {
    std::string out;
    for (char ch : text) append_xml_escaped(out, ch);
    return out;
}

} // namespace core::io
