// The project import's public face: a group import reads its archive with the same tar.gz reader.
export { ArchiveError, readArchive } from "./archive";
