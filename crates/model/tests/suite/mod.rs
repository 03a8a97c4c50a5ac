mod anthropic;
mod openai;
