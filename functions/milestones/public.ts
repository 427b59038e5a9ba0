// The milestones domain's public face: the one file another domain may import from it (the layering rule,
// .dependency-cruiser.cjs). The search API (functions/search) finds milestones with this domain's read rule.
export { searchMilestones, type MilestoneSearchScope } from "./queries";
