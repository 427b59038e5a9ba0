// The project export's public face: a group export writes its archive with the same streaming tar.gz writer.
export { R2ArchiveSink, TarGzWriter } from "./stream";
