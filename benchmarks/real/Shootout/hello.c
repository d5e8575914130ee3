/* -*- mode: c -*-
 * $Id$
 * http://www.bagley.org/~doug/shootout/
 */

#include <stdio.h>

int main() {
    puts("hello world\n");
    return(0);
}

