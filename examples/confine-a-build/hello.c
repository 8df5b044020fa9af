#include <stdio.h>
int main(void) { puts("hello from inside the sandbox"); return 0; }
