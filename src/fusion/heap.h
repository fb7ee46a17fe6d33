// Objects on the heap, as the parser models them (Burstall's memory model): a pointer to a struct or an
// integer that malloc made holds the object's number (kHeapRef; 0 is null, each allocation takes the next
// number of a counter), and each member of a struct is an array over those numbers, so that `p->m` is the cell
// p of m's array. That is exact as long as a pointer to an object is only stored, compared with == and != and
// followed: never moved, indexed, cast to an integer or compared by order, and never pointing into another
// object. The parser refuses those uses where it meets them; CheckHeapPointers refuses any that reaches the
// program another way.
#pragma once

#include "fusion/ast.h"

namespace fusion {

// Throws UnsupportedError (at the statement's position) where the program uses an object number as anything
// but a pointer: arithmetic on it or with it, a conversion between it and an integer (but a constant 0, the
// null pointer), a comparison other than == and != or with an integer, an index into an array other than the
// member arrays (program.heap_fields). The counter of objects (program.heap_objects) may count up.
void CheckHeapPointers(const Program& program);

}  // namespace fusion
