mod anthropic_json;
