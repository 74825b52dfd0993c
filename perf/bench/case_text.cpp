#include "case_text.h"

#include <algorithm>
#include <cctype>
#include <limits>

namespace idgpu_bench {
namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

bool all_digits(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

}  // namespace

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string::size_type begin = 0;
  while (true) {
    const std::string::size_type end = text.find(separator, begin);
    parts.push_back(text.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
    if (end == std::string::npos) return parts;
    begin = end + 1;
  }
}

long long parse_case_integer(const std::string& text, const std::string& what) {
  constexpr long long kMax = std::numeric_limits<long long>::max();
  if (text.size() > 2 && text.compare(0, 2, "2^") == 0 && all_digits(text.substr(2))) {
    const std::string exponent_text = text.substr(2);
    const long long exponent = exponent_text.size() > 2 ? 99 : std::stoll(exponent_text);
    if (exponent > 62) throw CaseTextError(what + " " + text + " is too large");
    return 1ll << exponent;
  }
  if (!all_digits(text)) {
    throw CaseTextError(what + " must be a positive integer or 2^K, not '" + text + "'");
  }
  // 19 digits may overflow; more always do.
  if (text.size() > 19 || (text.size() == 19 && text > std::to_string(kMax))) {
    throw CaseTextError(what + " " + text + " is too large");
  }
  return std::stoll(text);
}

CaseText::CaseText(const std::string& text) {
  std::vector<std::string> parts = split(text, ',');
  head_ = lower(parts.front());
  if (head_.empty()) throw CaseTextError("the case text is empty or starts with a comma");
  for (std::size_t index = 1; index < parts.size(); ++index) {
    const std::string& part = parts[index];
    if (part.empty()) throw CaseTextError("empty item (two commas in a row, or a trailing comma)");
    Item item;
    const std::string::size_type equals = part.find('=');
    item.key = lower(part.substr(0, equals));
    if (equals != std::string::npos) {
      item.value = part.substr(equals + 1);
      item.has_value = true;
      if (item.key.empty()) throw CaseTextError("item '" + part + "' has no key before '='");
      if (item.value.empty()) throw CaseTextError("item '" + part + "' has no value after '='");
    }
    if (find(item.key) != nullptr) throw CaseTextError("'" + item.key + "' is given twice");
    items_.push_back(std::move(item));
  }
}

CaseText::Item* CaseText::find(const std::string& key) {
  for (Item& item : items_) {
    if (item.key == key) return &item;
  }
  return nullptr;
}

bool CaseText::take(const std::string& key, std::string* value) {
  Item* item = find(key);
  if (item == nullptr) return false;
  if (!item->has_value) throw CaseTextError("'" + key + "' needs a value (" + key + "=...)");
  item->taken = true;
  *value = item->value;
  return true;
}

bool CaseText::take_flag(const std::string& flag) {
  Item* item = find(flag);
  if (item == nullptr) return false;
  if (item->has_value) throw CaseTextError("'" + flag + "' takes no value");
  item->taken = true;
  return true;
}

long long CaseText::take_integer(const std::string& key, long long minimum, long long maximum, long long fallback) {
  std::string text;
  if (!take(key, &text)) return fallback;
  const long long value = parse_case_integer(text, key);
  if (value < minimum || value > maximum) {
    throw CaseTextError(key + "=" + text + " is out of range [" + std::to_string(minimum) + ", " +
                        std::to_string(maximum) + "]");
  }
  return value;
}

void CaseText::finish(const std::string& expected) const {
  for (const Item& item : items_) {
    if (item.taken) continue;
    const std::string text = item.has_value ? item.key + "=" + item.value : item.key;
    throw CaseTextError("unknown item '" + text + "' (expected " + expected + ")");
  }
}

}  // namespace idgpu_bench
