// downdoc ships no types.
declare module "downdoc" {
  const downdoc: (asciidoc: string, options?: { attributes?: Record<string, string> }) => string;
  export default downdoc;
}
