// The text of a user-given case, as --fft and --gtsv take it: "HEAD,key=value,flag,...", where
// HEAD names the transform kind or the API and the other items its parameters.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace idgpu_bench {

// A case text that does not describe a valid case: a usage error, whose message names the item
// at fault.
class CaseTextError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The items of one case text. Each take_*() consumes an item; finish() refuses what was not taken,
// so a misspelt key is an error rather than a silently ignored parameter.
class CaseText {
 public:
  // Splits at commas; the head is lower-cased and must not be empty, keys may appear once.
  explicit CaseText(const std::string& text);

  const std::string& head() const { return head_; }

  // Whether KEY was given (as key=value); its value in *value.
  bool take(const std::string& key, std::string* value);
  // Whether the bare item FLAG was given.
  bool take_flag(const std::string& flag);
  // KEY's integer value in [minimum, maximum], or `fallback` where KEY is absent.
  long long take_integer(const std::string& key, long long minimum, long long maximum, long long fallback);

  // Throws for the first item no take_*() consumed; `expected` says what may follow the head.
  void finish(const std::string& expected) const;

 private:
  struct Item {
    std::string key;
    std::string value;
    bool has_value = false;
    bool taken = false;
  };
  Item* find(const std::string& key);

  std::string head_;
  std::vector<Item> items_;
};

// A positive integer as decimal digits or as a power of two, "2^K"; `what` names it in the error.
long long parse_case_integer(const std::string& text, const std::string& what);
// The items of TEXT between SEPARATOR characters (empty items kept).
std::vector<std::string> split(const std::string& text, char separator);

}  // namespace idgpu_bench
