// Debian's libfmt is built by g++, which names fmt::detail::vformat_to<char> differently from clang (fmt issue
// 2377): clang-built code that calls fmt::format_to needs clang's own instantiation, compiled here once
// instead of in every file (FMT_HEADER_ONLY).
#include <fmt/format.h>

template void fmt::detail::vformat_to<char>(fmt::detail::buffer<char>&, fmt::string_view,
                                            fmt::basic_format_args<fmt::buffer_context<char>>,
                                            fmt::detail::locale_ref);
