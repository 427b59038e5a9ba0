export * from "./columns";
export * from "./users";
export * from "./namespaces";
export * from "./projects";
export * from "./members";
export * from "./instance";
export * from "./repository";
export * from "./issues";
