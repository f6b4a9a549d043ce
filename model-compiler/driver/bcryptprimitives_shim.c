/* Stand-in for Windows 10's bcryptprimitives.dll, which Debian's wine 8.0 lacks, for running
 * win64 FMU binaries under wine (`hydromech verify`, the cross-platform tests): Rust's std
 * imports ProcessPrng from it (HashMap seeds); real Windows 10+ has it and never sees this.
 * Built with mingw and put next to the driver, so that wine loads it from the application
 * directory. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length); /* RtlGenRandom, advapi32 */

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    return SystemFunction036(data, (ULONG)length);
}
