// What archives use of fflate, apart: imported on demand by archive.ts, and named here so that the
// bundle keeps these two classes and not the whole library (an import() keeps all it could reach).
export { Zip, ZipPassThrough } from 'fflate'
