#ifndef CXML2_SHIM_H
#define CXML2_SHIM_H
// libxml2 is built with ICU, and its encoding header then includes the system's ICU headers. Foundation
// carries its own ICU whose types have the same names, and a module that sees both fails to build. Nothing
// here uses libxml2's ICU converter, so its declarations are left out.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#endif
